import type { AttemptRecord, ClaimedDelivery, WebhookStore } from '../core/ports/webhooks.js';
import type { EventType, StoredEvent } from '../core/shared/events.js';
import type { Database } from './database.js';
import { type Outbox, writeEvents } from './outbox.js';
import { NOW, toEndpoint } from './webhook-rows.js';

const toStoredEvent = (row: Record<string, unknown>): StoredEvent => ({
  id: row.event_id as string,
  seq: row.event_seq as number,
  type: row.event_type as EventType,
  createdAt: row.event_created_at as Date,
  ownerUserId: (row.owner_user_id as number | null) ?? null,
  subject: row.subject as string,
  data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as StoredEvent['data'],
});

const toClaimed = (row: Record<string, unknown>): ClaimedDelivery => ({
  id: row.delivery_id as number,
  attempts: row.attempts as number,
  endpoint: toEndpoint({ ...row, id: row.endpoint_id, api_key_id: row.owner_key_id }),
  secrets: [row.secret as string, ...(row.signing_previous ? [row.signing_previous as string] : [])],
  event: toStoredEvent(row),
  lease: row.lease as string,
  ownerDeliveriesPerMinute: (row.owner_deliveries_per_minute as number | null) ?? null,
});

/**
 * The key a delivery of an endpoint without a registering key counts for: its owner's newest key that is
 * neither revoked nor rotated out, else its newest key (none: anonymous).
 */
const OWNERS_NEWEST_KEY = `SELECT k.id FROM api_keys k WHERE k.user_id = w.user_id
  ORDER BY (k.revoked_at IS NULL AND k.replaced_by IS NULL) DESC, k.id DESC LIMIT 1`;

/**
 * One statement claims due deliveries: the oldest due and unleased rows (of endpoints other than `$3`),
 * locked with SKIP LOCKED (instances claiming at once take different rows) and leased, so that a claimed
 * row gets no second attempt until this one is recorded or the lease runs out (its instance died); with
 * each, its endpoint, its event, the secrets that sign now and its lease (the fence of its outcome). A due
 * row whose endpoint was disabled, or whose registering key was revoked or expired since it was queued, is
 * failed instead: nothing is sent to it. The queue's tables grow fast, faster than
 * their statistics, and a planner that believes them small reads them whole (a claim on a backlog of 27,000
 * deliveries took 50 ms so, 0.1 ms along the index): due rows are read in the order of the index of due
 * rows, from its first entry (the `min`, which the planner takes from the index whatever it believes, and
 * which makes the range look narrow to it), stopping after `$1`; the others are reached by key (`= ANY`, a
 * LATERAL that OFFSET 0 keeps from being flattened into a join).
 */
const CLAIM = `
  WITH due AS (
    SELECT id FROM webhook_deliveries
     WHERE state = 'pending' AND (lease_until IS NULL OR lease_until < now())
       AND next_attempt_at BETWEEN (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending')
                               AND now()
       AND NOT (endpoint_id = ANY ($3::bigint[]))
     ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
  ), checked AS (
    SELECT d.id, w.disabled_reason IS NULL AND (w.api_key_id IS NULL OR EXISTS (
             SELECT 1 FROM api_keys k
              WHERE k.id = w.api_key_id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())))
           AS live
      FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.id = ANY (ARRAY(SELECT id FROM due))
  ), stopped AS (
    UPDATE webhook_deliveries SET state = 'failed', lease_until = NULL
     WHERE id = ANY (ARRAY(SELECT id FROM checked WHERE NOT live))
  ), claimed AS (
    UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $2::double precision / 1000)
     WHERE d.id = ANY (ARRAY(SELECT id FROM checked WHERE live))
    RETURNING d.id, d.attempts, d.endpoint_id, d.event_id, d.lease_until::text AS lease
  )
  SELECT c.id AS delivery_id, c.attempts, c.lease, w.*, w.id AS endpoint_id, e.seq AS event_seq,
         e.type AS event_type, e.created_at AS event_created_at, e.owner_user_id, e.subject, e.data,
         e.id AS event_id, CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS signing_previous,
         COALESCE(w.api_key_id, (${OWNERS_NEWEST_KEY})) AS owner_key_id,
         (SELECT u.webhook_deliveries_per_minute FROM users u WHERE u.id = w.user_id) AS owner_deliveries_per_minute
    FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id
         CROSS JOIN LATERAL (SELECT * FROM events WHERE events.id = c.event_id OFFSET 0) e
   ORDER BY c.id`;

/**
 * One statement records the outcomes of attempts that disable nothing (`$1`… one array per column, in the
 * order the attempts ended): their log rows, their deliveries' next state (the lease ends; only while the
 * delivery is pending under the lease its attempt claimed: a delivery stopped meanwhile, by a sibling's
 * `410` or its endpoint disabled, never leaves that terminal state, and a lease that ran out and was
 * claimed again is the new claim's to record), and each
 * endpoint's `failing_since` as its last outcome says, written only when it changes (a success on a healthy
 * endpoint leaves its row alone, so that concurrent outcomes do not queue on its lock). Deliveries are
 * reached by key (`= ANY ($1)`), whatever the planner believes of the table's size.
 */
const RECORD = `
  WITH outcome AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[],
                         $8::text[], $9::timestamptz[], $10::text[], $11::timestamptz[], $12::text[])
      WITH ORDINALITY AS o (delivery_id, endpoint_id, event_id, event_type, attempt, status, duration_ms, error,
                            next_retry_at, state, failing_since, lease, nth)
  ), logged AS (
    INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, status, duration_ms, error, next_retry_at)
    SELECT endpoint_id, event_id, event_type, attempt, status, duration_ms, error, next_retry_at
      FROM outcome ORDER BY nth
  ), moved AS (
    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, state = o.state,
           next_attempt_at = COALESCE(o.next_retry_at, d.next_attempt_at), lease_until = NULL
      FROM outcome o WHERE d.id = ANY ($1::bigint[]) AND d.id = o.delivery_id
       AND d.state = 'pending' AND d.lease_until::text = o.lease
  )
  UPDATE webhook_endpoints w SET failing_since = last.failing_since
    FROM (SELECT DISTINCT ON (endpoint_id) endpoint_id, failing_since FROM outcome ORDER BY endpoint_id, nth DESC) last
   WHERE w.id = last.endpoint_id AND w.failing_since IS DISTINCT FROM last.failing_since`;

/** The queue of deliveries: claims and the outcome of attempts. */
export function deliveryStore(
  db: Database,
  wakeups: Outbox['wakeups'],
): Pick<WebhookStore, 'claimDue' | 'record' | 'recordAll' | 'defer'> {
  const record: WebhookStore['record'] = (attempt) => {
    const { delivery } = attempt;
    return db.transaction(async (tx) => {
      await tx.query(RECORD, columns([attempt]));
      if (!attempt.disable) return;
      await tx.query(
        `UPDATE webhook_endpoints SET disabled_reason = $2, updated_at = ${NOW} WHERE id = $1 AND disabled_reason IS NULL`,
        [delivery.endpoint.id, attempt.disable.reason],
      );
      await tx.query(`UPDATE webhook_deliveries SET state = 'failed' WHERE endpoint_id = $1 AND state = 'pending'`, [
        delivery.endpoint.id,
      ]);
      await writeEvents(tx, wakeups, [attempt.disable.event]);
    });
  };
  return {
    async claimDue(limit, leaseMs, room) {
      const perEndpoint = room?.perEndpoint ?? limit;
      const busy = room?.busy ?? new Map<number, number>();
      const full = [...busy].filter(([, inFlight]) => inFlight >= perEndpoint).map(([endpointId]) => endpointId);
      const claimed = (await db.query(CLAIM, [limit, leaseMs, full])).map(toClaimed);
      // An endpoint's deliveries beyond its room go back to the queue (rare: a slow endpoint with a backlog).
      const taken = new Map(busy);
      const kept: ClaimedDelivery[] = [];
      const released: ClaimedDelivery[] = [];
      for (const delivery of claimed) {
        const count = taken.get(delivery.endpoint.id) ?? 0;
        if (count < perEndpoint) kept.push(delivery);
        else released.push(delivery);
        taken.set(delivery.endpoint.id, count + 1);
      }
      if (released.length > 0) {
        // Only under the lease just taken (the fence, as for an outcome).
        await db.query(
          `UPDATE webhook_deliveries d SET lease_until = NULL
             FROM unnest($1::bigint[], $2::text[]) AS mine(id, lease)
            WHERE d.id = mine.id AND d.lease_until::text = mine.lease`,
          [released.map((delivery) => delivery.id), released.map((delivery) => delivery.lease)],
        );
      }
      return kept;
    },
    record,
    async defer(delivery, until) {
      await db.query(
        `UPDATE webhook_deliveries SET lease_until = NULL, next_attempt_at = $3
          WHERE id = $1 AND state = 'pending' AND lease_until::text = $2`,
        [delivery.id, delivery.lease, until],
      );
    },
    async recordAll(attempts) {
      // The plain outcomes first, in one statement; then each that disables its endpoint (which also fails
      // the endpoint's pending deliveries), in a transaction of its own as `record` does.
      const plain = attempts.filter((attempt) => !attempt.disable);
      if (plain.length > 0) await db.query(RECORD, columns(plain));
      for (const attempt of attempts) if (attempt.disable) await record(attempt);
    },
  };
}

/** The parameters of RECORD: one array per column. */
function columns(attempts: readonly AttemptRecord[]): unknown[] {
  const of = <T>(pick: (attempt: AttemptRecord) => T) => attempts.map(pick);
  return [
    of((a) => a.delivery.id),
    of((a) => a.delivery.endpoint.id),
    of((a) => a.delivery.event.id),
    of((a) => a.delivery.event.type),
    of((a) => a.delivery.attempts + 1),
    of((a) => a.status),
    of((a) => a.durationMs),
    of((a) => a.error),
    of((a) => a.nextAttemptAt),
    of((a) => a.state),
    of((a) => a.failingSince),
    of((a) => a.delivery.lease),
  ];
}
