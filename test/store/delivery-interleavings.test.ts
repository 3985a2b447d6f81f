/**
 * Webhook deliveries under interleavings explored by fast-check's scheduler: two dispatchers (each with a
 * lease of 1 ms or a minute, so that one may claim again what the other still works on), each claiming
 * twice and recording what the endpoint answered (`204`, `500` or `410`), and perhaps the endpoint's owner
 * disabling it (`PATCH disabled: true`). Every statement is a point where the scheduler picks who goes next,
 * and each runs in a transaction of its own that also reads the deliveries' states as it left them: the
 * sequence of those reads is the history the invariants are checked against.
 * - A delivery never leaves a terminal state (`succeeded`, `failed`).
 * - No claim hands out a delivery of an endpoint already disabled (by a `410` or by its owner). Two fences
 *   keep this one, each enough alone: a disable fails what is queued, and a claim skips a disabled endpoint;
 *   with both removed the test fails.
 * - At quiet, once what is due has been delivered, each event reached an endpoint still enabled.
 *
 * PGlite runs one transaction at a time: these are interleavings of whole statements, and the readings are
 * a true history only there (on PostgreSQL two statements run at once, and each reads before the other
 * commits), so the test runs on PGlite only. Races inside two transactions at once are staged on
 * PostgreSQL in delivery-fencing.test.ts.
 */
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptRecord } from '../../src/core/events/webhook-delivery.js';
import type { ClaimedDelivery, WebhookStore } from '../../src/core/ports/index.js';
import type { Database } from '../../src/store/database.js';
import { sqlOutbox, writeEvents } from '../../src/store/outbox.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { openTestDatabase, type TestDatabase, testDatabaseUrl } from '../support/database.js';
import { storeEndpoint, storeUser } from '../support/fixtures.js';

/** One delivery as a statement left it. */
interface Seen {
  id: number;
  state: string;
  disabled: boolean;
}

let database: TestDatabase;
let scheduler: fc.Scheduler | undefined;
let endpointId = 0;
/** After each statement, in the order they ran: the deliveries' states, and those a claim handed out. */
let history: Array<{ seen: Seen[]; handedOut: number[] }> = [];
let webhooks: WebhookStore;
let userId: number;

/** Reads the deliveries of the current endpoint (inside the statement's own transaction). */
const look = (tx: Pick<Database, 'query'>) =>
  tx.query<Seen>(
    `SELECT d.id::int AS id, d.state, w.disabled_reason IS NOT NULL AS disabled
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE w.id = $1 ORDER BY d.id`,
    [endpointId],
  );

/** The database, each statement and transaction waiting for the scheduler, then writing its reading down. */
function scheduled(db: Database): Database {
  const turn = (label: string) => (scheduler ? scheduler.schedule(Promise.resolve(label), label) : Promise.resolve());
  type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
  const recorded = async <T>(tx: Tx, work: () => Promise<T>, claim = false) => {
    const result = await work();
    const handedOut = claim ? (result as Array<{ delivery_id: number }>).map((row) => Number(row.delivery_id)) : [];
    history.push({ seen: await look(tx), handedOut });
    return result;
  };
  return {
    ...db,
    query: (sql, params) =>
      turn(sql.trim().split(/\s+/).slice(0, 3).join(' ')).then(() =>
        db.transaction((tx) => recorded(tx, () => tx.query(sql, params), /^\s*WITH due AS/.test(sql))),
      ) as never,
    transaction: (work) => turn('transaction').then(() => db.transaction((tx) => recorded(tx, () => work(tx)))),
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  webhooks = createSqlStore(scheduled(database.db)).webhooks;
  userId = await storeUser(database.store, 'Ivy');
});
afterAll(() => database?.close());

let runs = 0;
const MINUTE = 60_000;
/** Retries far apart: a `500` leaves the delivery pending, never failed for lack of attempts. */
const SCHEDULE = Array.from({ length: 20 }, () => 0);

const answer = (delivery: ClaimedDelivery, status: number) =>
  attemptRecord(
    delivery,
    { status, durationMs: 1, error: status < 300 ? null : `answered ${status}` },
    { now: new Date(), schedule: SCHEDULE },
  );

/** A dispatcher: claims twice, recording what the endpoint answered to each delivery it got. */
async function dispatcher(leaseMs: number, answers: number[], claims: ClaimedDelivery[][]) {
  for (let round = 0; round < 2; round++) {
    const claimed = await webhooks.claimDue(2, leaseMs);
    claims.push(claimed);
    for (const delivery of claimed) await webhooks.record(answer(delivery, answers.shift() ?? 204));
  }
}

const terminal = (state: string) => state === 'succeeded' || state === 'failed';

interface Plan {
  leases: [number, number];
  answers: [number[], number[]];
  ownerDisables: boolean;
}

async function interleaving(s: fc.Scheduler, plan: Plan) {
  const { db } = database;
  const endpoint = await storeEndpoint(database.store, {
    userId,
    url: `https://hooks.example.com/interleaving-${++runs}`,
  });
  endpointId = endpoint.id;
  for (let n = 0; n < 3; n++) {
    await db.transaction((tx) =>
      writeEvents(tx, sqlOutbox(db).wakeups, [
        { type: 'order.created', ownerUserId: userId, subject: `order:${runs}-${n}`, data: {} as never },
      ]),
    );
  }
  history = [{ seen: await look(db), handedOut: [] }];
  scheduler = s;
  const claims: ClaimedDelivery[][] = [];
  const work = Promise.allSettled([
    dispatcher(plan.leases[0], [...plan.answers[0]], claims),
    dispatcher(plan.leases[1], [...plan.answers[1]], claims),
    plan.ownerDisables ? webhooks.update(endpoint.id, { disabledReason: 'requested' }) : undefined,
  ]);
  const outcomes = await s.waitFor(work);
  scheduler = undefined;
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;

  // A delivery never leaves a terminal state; no claim hands out a delivery of an endpoint disabled before it.
  const ours = new Set(history[0]?.seen.map((seen) => seen.id));
  expect(ours.size).toBe(3);
  for (const [index, { seen: before }] of history.entries()) {
    const next = history[index + 1];
    if (!next) break;
    for (const delivery of before.filter((seen) => terminal(seen.state))) {
      expect(next.seen.find((seen) => seen.id === delivery.id)?.state).toBe(delivery.state);
    }
    if (before[0]?.disabled) expect(next.handedOut.filter((id) => ours.has(id))).toEqual([]);
  }
  // Not empty: unless its owner disabled it first, the endpoint's deliveries were handed out.
  if (!plan.ownerDisables) expect(claims.flat().length).toBeGreaterThan(0);
  // At quiet: what is due is delivered (a minute's lease, every answer 204); an enabled endpoint then has
  // every event delivered, a disabled one has nothing left pending.
  for (let claimed = await webhooks.claimDue(10, MINUTE); claimed.length > 0; ) {
    for (const delivery of claimed) await webhooks.record(answer(delivery, 204));
    claimed = await webhooks.claimDue(10, MINUTE);
  }
  const final = await look(db);
  const disabled = final[0]?.disabled ?? false;
  if (!disabled) expect(final.map((seen) => seen.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  else expect(final.filter((seen) => !terminal(seen.state))).toEqual([]);
  // Leaves no endpoint of this run enabled for the next one's events.
  await database.store.webhooks.update(endpoint.id, { disabledReason: 'requested' });
}

const plans = fc.record({
  leases: fc.tuple(fc.constantFrom(1, MINUTE), fc.constantFrom(1, MINUTE)),
  answers: fc.tuple(
    fc.array(fc.constantFrom(204, 500, 410), { minLength: 4, maxLength: 4 }),
    fc.array(fc.constantFrom(204, 500, 410), { minLength: 4, maxLength: 4 }),
  ),
  ownerDisables: fc.boolean(),
});

describe('webhook deliveries under explored interleavings', () => {
  it.skipIf(Boolean(testDatabaseUrl))(
    'never leave a terminal state nor go to a disabled endpoint, and reach an enabled one',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), plans, (s, plan) => interleaving(s, plan as Plan)),
        { numRuns: 40, endOnFailure: true },
      );
    },
    60_000,
  );
});
