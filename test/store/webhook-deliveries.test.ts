/**
 * The queue of webhook deliveries in the database (PGlite by default, PostgreSQL with TEST_DATABASE_URL), as
 * the dispatcher uses it: a claim takes the oldest due deliveries once, at most an endpoint's room of one
 * endpoint (the rest go back to the queue at once, not after a lease), and outcomes are recorded several at
 * a time: the log, the next attempt, the endpoint's failing time, and a 410 disabling the endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptRecord } from '../../src/core/events/webhook-delivery.js';
import type { ClaimedDelivery, WebhookStore } from '../../src/core/ports/index.js';
import { sqlOutbox, writeEvents } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { storeEndpoint, storeUser } from '../support/fixtures.js';

let database: TestDatabase;
let store: WebhookStore;
let userId: number;
beforeAll(async () => {
  database = await openTestDatabase();
  store = database.store.webhooks;
  userId = await storeUser(database.store, 'Quinn');
});
afterAll(() => database?.close());

const LEASE_MS = 60_000;
const hook = (path: string) => storeEndpoint(database.store, { userId, url: `https://hooks.example.com/${path}` });
/** Writes `count` order.created events, each queued for every endpoint subscribed to it. */
async function placeEvents(count: number) {
  const { db } = database;
  for (let n = 0; n < count; n++) {
    await db.transaction((tx) =>
      writeEvents(tx, sqlOutbox(db).wakeups, [
        { type: 'order.created', ownerUserId: userId, subject: `order:${n}`, data: { object: { id: n } } as never },
      ]),
    );
  }
}
const state = (id: number) =>
  database.db.query<{ state: string; attempts: number; lease_until: Date | null }>(
    'SELECT state, attempts, lease_until FROM webhook_deliveries WHERE id = $1',
    [id],
  );
const byEndpoint = (claimed: ClaimedDelivery[]) => claimed.map((delivery) => delivery.endpoint.url.split('/').pop());

describe('the webhook delivery queue', () => {
  it('claims each due delivery once, oldest first, and at most the room an endpoint has left', async () => {
    const busy = await hook('busy');
    await placeEvents(4);
    await hook('quiet');
    await placeEvents(1);
    // busy: 5 deliveries (4 older), quiet: 1. busy has 1 attempt in flight and a room of 2: one more.
    const first = await store.claimDue(10, LEASE_MS, { perEndpoint: 2, busy: new Map([[busy.id, 1]]) });
    expect(byEndpoint(first)).toEqual(['busy', 'quiet']);
    // The busy endpoint's others were not kept leased: an endpoint with room takes them at once.
    const second = await store.claimDue(10, LEASE_MS, { perEndpoint: 10, busy: new Map() });
    expect(byEndpoint(second)).toEqual(['busy', 'busy', 'busy', 'busy']);
    expect(second[0]?.event.seq).toBeLessThan(second[3]?.event.seq ?? 0);
    expect(await store.claimDue(10, LEASE_MS)).toEqual([]);
    // A full endpoint is left out of the claim.
    await placeEvents(1);
    const third = await store.claimDue(10, LEASE_MS, { perEndpoint: 2, busy: new Map([[busy.id, 2]]) });
    expect(byEndpoint(third)).toEqual(['quiet']);
    await store.recordAll(
      [...first, ...second, ...third].map((delivery) =>
        attemptRecord(delivery, { status: 204, durationMs: 3, error: null }, { now: new Date(), schedule: [5] }),
      ),
    );
    expect(await store.claimDue(10, LEASE_MS)).toHaveLength(1); // the busy endpoint's newest
  });

  it('records several outcomes at once: the log, the next attempt, failing since; a 410 disables', async () => {
    const ok = await hook('ok');
    const failing = await hook('failing');
    const gone = await hook('gone');
    for (const delivery of await store.claimDue(100, LEASE_MS)) {
      await store.record(
        attemptRecord(delivery, { status: 204, durationMs: 1, error: null }, { now: new Date(), schedule: [5] }),
      );
    }
    await placeEvents(2);
    const claimed = await store.claimDue(100, LEASE_MS);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const result = (delivery: ClaimedDelivery) =>
      ({
        ok: { status: 204, error: null },
        failing: { status: 500, error: 'answered 500' },
        gone: { status: 410, error: 'answered 410' },
      })[delivery.endpoint.url.split('/').pop() as 'ok' | 'failing' | 'gone'];
    const mine = claimed.filter((delivery) => [ok.id, failing.id, gone.id].includes(delivery.endpoint.id));
    const records = mine.map((delivery) =>
      attemptRecord(delivery, { ...result(delivery), durationMs: 2 }, { now, schedule: [5] }),
    );
    const goneRecords = records.filter((record) => record.delivery.endpoint.id === gone.id);
    await store.recordAll(
      records.filter((record) => record.delivery.endpoint.id !== gone.id).concat(goneRecords[0] ?? []),
    );
    for (const record of records) {
      const [row] = await state(record.delivery.id);
      const expected = { ok: 'succeeded', failing: 'pending', gone: 'failed' };
      expect(row?.state).toBe(expected[record.delivery.endpoint.url.split('/').pop() as keyof typeof expected]);
      if (record.delivery.endpoint.id !== gone.id || record === goneRecords[0]) expect(row?.lease_until).toBeNull();
    }
    const log = await store.attempts(failing.id, { limit: 10 });
    expect(log.map((attempt) => [attempt.status, attempt.error, attempt.nextRetryAt?.getTime()])).toEqual([
      [500, 'answered 500', now.getTime() + 5000],
      [500, 'answered 500', now.getTime() + 5000],
    ]);
    expect((await store.get(failing.id))?.failingSince).toEqual(now);
    expect((await store.get(ok.id))?.failingSince).toBeNull();
    expect((await store.get(gone.id))?.disabledReason).toBe('gone');
    const disabled = await database.db.query<{ type: string }>(`SELECT type FROM events WHERE subject = $1`, [
      `webhook_endpoint:${gone.id}`,
    ]);
    expect(disabled).toEqual([{ type: 'webhook_endpoint.disabled' }]);
  });
});
