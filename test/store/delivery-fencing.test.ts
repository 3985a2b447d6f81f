/**
 * Deliveries under fencing (docs/decisions.md, "Leases and fencing"): a delivery never leaves a terminal
 * state, an attempt's outcome is recorded only under the lease it claimed, and nothing is sent to an
 * endpoint disabled (by a `410`, by its owner) or whose registering key stopped working after its
 * deliveries were queued. Each case stages the interleaving by hand: two attempts of one endpoint in
 * flight, a lease that ran out and was claimed again.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptRecord } from '../../src/core/events/webhook-delivery.js';
import { hashKey } from '../../src/core/keys/key-check.js';
import type { ClaimedDelivery, WebhookStore } from '../../src/core/ports/index.js';
import { sqlOutbox, writeEvents } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { storeEndpoint, storeUser } from '../support/fixtures.js';

let database: TestDatabase;
let store: WebhookStore;
let userId: number;
beforeEach(async () => {
  await database?.close();
  database = await openTestDatabase();
  store = database.store.webhooks;
  userId = await storeUser(database.store, 'Fen');
});
afterAll(() => database?.close());

const LEASE_MS = 60_000;
const hook = (apiKeyId: number | null = null) =>
  storeEndpoint(database.store, { userId, apiKeyId, url: 'https://hooks.example.com/fence' });
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
const outcome = (delivery: ClaimedDelivery, status: number) =>
  attemptRecord(
    delivery,
    { status, durationMs: 1, error: status < 300 ? null : `answered ${status}` },
    {
      now: new Date(),
      schedule: [0],
    },
  );
const states = async () =>
  (await database.db.query<{ state: string }>('SELECT state FROM webhook_deliveries ORDER BY id')).map(
    (row) => row.state,
  );

describe('a webhook delivery', () => {
  it("stays failed when a sibling's 500 is recorded after a 410 disabled its endpoint, and is not sent again", async () => {
    await hook();
    await placeEvents(2);
    const [first, second] = await store.claimDue(10, LEASE_MS);
    await store.record(outcome(first as ClaimedDelivery, 410));
    await store.record(outcome(second as ClaimedDelivery, 500));
    expect(await states()).toEqual(['failed', 'failed']);
    expect(await store.claimDue(10, 0)).toEqual([]);
  });

  it('is stopped with its endpoint: a PATCH disabled: true fails what is queued and in flight', async () => {
    const endpoint = await hook();
    await placeEvents(2);
    const [inFlight] = await store.claimDue(1, LEASE_MS);
    await store.update(endpoint.id, { disabledReason: 'requested' });
    await store.record(outcome(inFlight as ClaimedDelivery, 500));
    expect(await states()).toEqual(['failed', 'failed']);
    expect(await store.claimDue(10, 0)).toEqual([]);
  });

  it("deferred (its owner's delivery budget spent) goes back untried until then, only under its lease", async () => {
    await hook();
    await placeEvents(2);
    const [deferred, stale] = await store.claimDue(2, LEASE_MS);
    await store.defer(deferred as ClaimedDelivery, new Date(Date.now() + 60_000));
    // Not due yet: the claim passes it over; nothing was counted or logged of it.
    expect(await store.claimDue(10, LEASE_MS)).toEqual([]);
    const rows = await database.db.query<{ attempts: number; state: string }>(
      'SELECT attempts, state FROM webhook_deliveries WHERE id = $1',
      [deferred?.id],
    );
    expect(rows).toEqual([{ attempts: 0, state: 'pending' }]);
    expect(await database.db.query('SELECT 1 FROM webhook_attempts')).toEqual([]);
    // A deferral under a lease that is no longer the delivery's changes nothing.
    await store.record(outcome(stale as ClaimedDelivery, 204));
    await store.defer(stale as ClaimedDelivery, new Date(Date.now() + 60_000));
    expect(await states()).toEqual(['pending', 'succeeded']);
    // Once due, it is claimed again.
    await store.defer({ ...(deferred as ClaimedDelivery), lease: 'not its lease' }, new Date(0));
    expect(await store.claimDue(10, LEASE_MS)).toEqual([]);
    await database.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [deferred?.id]);
    expect((await store.claimDue(10, LEASE_MS)).map((delivery) => delivery.id)).toEqual([deferred?.id]);
  });

  it('keeps the outcome of the claim that holds it now against a late one whose lease ran out', async () => {
    await hook();
    await placeEvents(1);
    const [late] = await store.claimDue(1, 1);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the 1 ms lease runs out
    const [current] = await store.claimDue(1, LEASE_MS);
    expect(current?.id).toBe(late?.id);
    await store.record(outcome(current as ClaimedDelivery, 204));
    await store.record(outcome(late as ClaimedDelivery, 500));
    expect(await states()).toEqual(['succeeded']);
  });

  it('is not sent when the key that registered its endpoint was revoked after it was queued', async () => {
    const keys = await database.db.query<{ id: number }>(
      `INSERT INTO api_keys (user_id, role, key_hash) VALUES ($1, 'customer', $2) RETURNING id`,
      [userId, hashKey('oak_fence')],
    );
    await hook(Number(keys[0]?.id));
    await placeEvents(1);
    await database.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keys[0]?.id]);
    expect(await store.claimDue(10, LEASE_MS)).toEqual([]);
    expect(await states()).toEqual(['failed']);
  });

  it("keeps a notice mail's outcome of the claim that holds it now against a late one whose lease ran out", async () => {
    await placeEvents(1);
    await database.db.query(
      `INSERT INTO notice_mails (event_id, recipient, subject, body) SELECT id, 'fen@example.com', 's', 'b' FROM events LIMIT 1`,
    );
    const mails = database.store.noticeMails;
    const [late] = await mails.claimDue(1, 1);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the 1 ms lease runs out
    const [current] = await mails.claimDue(1, LEASE_MS);
    expect(current?.id).toBe(late?.id);
    const record = (mail: typeof late, state: 'succeeded' | 'failed') =>
      mails.record({
        mail: mail as NonNullable<typeof late>,
        state,
        attemptedAt: new Date(),
        error: null,
        nextAttemptAt: null,
      });
    await record(current, 'succeeded');
    await record(late, 'failed');
    const rows = await database.db.query<{ state: string; attempts: number }>(
      'SELECT state, attempts FROM notice_mails',
    );
    expect(rows).toEqual([{ state: 'succeeded', attempts: 1 }]);
  });

  it('lets registrations at once pass the cap of endpoints per owner no further than the cap', async () => {
    const register = (n: number) =>
      store.insert(
        {
          userId,
          apiKeyId: null,
          allOwners: false,
          url: `https://hooks.example.com/cap-${n}`,
          events: ['order.created'],
          description: null,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        10,
      );
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, n) => register(n)));
    expect(outcomes.filter((outcome) => typeof outcome !== 'string')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === 'limit-reached')).toHaveLength(6);
    expect(await register(0)).toBe('url-taken');
  });
});
