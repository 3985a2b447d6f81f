import type { EventType, StoredEvent } from '../core/events.js';
import type { DisabledReason, WebhookAttempt, WebhookEndpoint, WebhookStore } from '../core/ports/webhooks.js';
import type { Database } from './database.js';
import { type Outbox, writeEvents } from './outbox.js';

const toEndpoint = (row: Record<string, unknown>): WebhookEndpoint => ({
  id: row.id as number,
  userId: row.user_id as number,
  apiKeyId: (row.api_key_id as number | null) ?? null,
  allOwners: row.all_owners as boolean,
  url: row.url as string,
  events: row.events as EventType[],
  description: (row.description as string | null) ?? null,
  disabledReason: (row.disabled_reason as DisabledReason | null) ?? null,
  previousSecretExpiresAt: (row.previous_secret_expires_at as Date | null) ?? null,
  failingSince: (row.failing_since as Date | null) ?? null,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

const toAttempt = (row: Record<string, unknown>): WebhookAttempt => ({
  id: row.id as number,
  eventId: row.event_id as string,
  eventType: row.event_type as EventType,
  attempt: row.attempt as number,
  status: (row.status as number | null) ?? null,
  durationMs: row.duration_ms as number,
  error: (row.error as string | null) ?? null,
  attemptedAt: row.attempted_at as Date,
  nextRetryAt: (row.next_retry_at as Date | null) ?? null,
});

const toStoredEvent = (row: Record<string, unknown>): StoredEvent => ({
  id: row.event_id as string,
  seq: row.event_seq as number,
  type: row.event_type as EventType,
  createdAt: row.event_created_at as Date,
  ownerUserId: (row.owner_user_id as number | null) ?? null,
  subject: row.subject as string,
  data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as StoredEvent['data'],
});

const NOW = `date_trunc('milliseconds', now())`;

/**
 * The key a delivery of an endpoint without a registering key counts for: its owner's newest key that is
 * neither revoked nor rotated out, else its newest key (none: anonymous).
 */
const OWNERS_NEWEST_KEY = `SELECT k.id FROM api_keys k WHERE k.user_id = w.user_id
  ORDER BY (k.revoked_at IS NULL AND k.replaced_by IS NULL) DESC, k.id DESC LIMIT 1`;

/** Webhook endpoints, deliveries and attempts in PostgreSQL (`wakeups` announce the event of an endpoint disabled). */
export function webhookStore(db: Database, wakeups: Outbox['wakeups']): WebhookStore {
  return { ...endpointStore(db), ...deliveryStore(db, wakeups) };
}

/** The endpoints and their log. */
function endpointStore(db: Database): Omit<WebhookStore, 'claimDue' | 'record'> {
  return {
    async insert({ userId, apiKeyId, allOwners, url, events, description, secret }) {
      const rows = await db.query(
        `INSERT INTO webhook_endpoints (user_id, api_key_id, all_owners, url, events, description, secret)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [userId, apiKeyId, allOwners, url, events, description, secret],
      );
      return toEndpoint(rows[0] as Record<string, unknown>);
    },
    async get(id) {
      const rows = await db.query('SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
      return rows[0] && toEndpoint(rows[0]);
    },
    async list({ userId, beforeId, limit }) {
      const rows = await db.query(
        `SELECT * FROM webhook_endpoints WHERE ($1::bigint IS NULL OR user_id = $1) AND ($2::bigint IS NULL OR id < $2)
          ORDER BY id DESC LIMIT $3`,
        [userId ?? null, beforeId ?? null, limit],
      );
      return rows.map(toEndpoint);
    },
    async update(id, fields) {
      const rows = await db.query(
        `UPDATE webhook_endpoints SET url = COALESCE($2, url), events = COALESCE($3, events),
                disabled_reason = CASE WHEN $4 THEN $5 ELSE disabled_reason END,
                failing_since = CASE WHEN $4 THEN NULL ELSE failing_since END, updated_at = ${NOW}
          WHERE id = $1 RETURNING *`,
        [
          id,
          fields.url ?? null,
          fields.events ?? null,
          fields.disabledReason !== undefined,
          fields.disabledReason ?? null,
        ],
      );
      return rows[0] && toEndpoint(rows[0]);
    },
    async delete(id) {
      return (await db.query('DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id', [id])).length > 0;
    },
    async count(userId) {
      const rows = await db.query<{ count: number }>(
        'SELECT count(*) AS count FROM webhook_endpoints WHERE ($1::bigint IS NULL OR user_id = $1)',
        [userId ?? null],
      );
      return rows[0]?.count ?? 0;
    },
    async countAttempts(endpointId) {
      const rows = await db.query<{ count: number }>(
        'SELECT count(*) AS count FROM webhook_attempts WHERE endpoint_id = $1',
        [endpointId],
      );
      return rows[0]?.count ?? 0;
    },
    async rotateSecret(id, secret, previousUntil) {
      const rows = await db.query(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2,
                updated_at = ${NOW} WHERE id = $1 RETURNING *`,
        [id, secret, previousUntil],
      );
      return rows[0] && toEndpoint(rows[0]);
    },
    async attempts(endpointId, { beforeId, limit }) {
      const rows = await db.query(
        `SELECT * FROM webhook_attempts WHERE endpoint_id = $1 AND ($2::bigint IS NULL OR id < $2)
          ORDER BY id DESC LIMIT $3`,
        [endpointId, beforeId ?? null, limit],
      );
      return rows.map(toAttempt);
    },
    async queue(endpointId, eventId) {
      await db.query('INSERT INTO webhook_deliveries (endpoint_id, event_id) VALUES ($1, $2)', [endpointId, eventId]);
    },
  };
}

/** The queue of deliveries: claims and the outcome of attempts. */
function deliveryStore(db: Database, wakeups: Outbox['wakeups']): Pick<WebhookStore, 'claimDue' | 'record'> {
  return {
    claimDue(limit, leaseMs) {
      return db.transaction(async (tx) => {
        // SKIP LOCKED: instances claiming at once take different rows; the lease keeps a claimed row from
        // a second attempt until this one is recorded (or its instance died and the lease ran out).
        const rows = await tx.query(
          `WITH due AS (
             SELECT id FROM webhook_deliveries
              WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
              ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
           UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $2::double precision / 1000)
             FROM due WHERE d.id = due.id RETURNING d.id, d.attempts, d.endpoint_id, d.event_id`,
          [limit, leaseMs],
        );
        if (rows.length === 0) return [];
        const details = await tx.query(
          `SELECT d.id AS delivery_id, d.attempts, w.*, w.id AS endpoint_id, e.seq AS event_seq, e.type AS event_type,
                  e.created_at AS event_created_at, e.owner_user_id, e.subject, e.data, e.id AS event_id,
                  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS signing_previous,
                  COALESCE(w.api_key_id, (${OWNERS_NEWEST_KEY})) AS owner_key_id
             FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
            WHERE d.id = ANY ($1::bigint[]) ORDER BY d.id`,
          [rows.map((row) => row.id)],
        );
        return details.map((row) => ({
          id: row.delivery_id as number,
          attempts: row.attempts as number,
          endpoint: toEndpoint({ ...row, id: row.endpoint_id, api_key_id: row.owner_key_id }),
          secrets: [row.secret as string, ...(row.signing_previous ? [row.signing_previous as string] : [])],
          event: toStoredEvent(row),
        }));
      });
    },
    record(attempt) {
      const { delivery } = attempt;
      return db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, status, duration_ms, error, next_retry_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            delivery.endpoint.id,
            delivery.event.id,
            delivery.event.type,
            delivery.attempts + 1,
            attempt.status,
            attempt.durationMs,
            attempt.error,
            attempt.nextAttemptAt,
          ],
        );
        await tx.query(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, state = $2, next_attempt_at = COALESCE($3, next_attempt_at),
                  lease_until = NULL WHERE id = $1`,
          [delivery.id, attempt.state, attempt.nextAttemptAt],
        );
        await tx.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1', [
          delivery.endpoint.id,
          attempt.failingSince,
        ]);
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
    },
  };
}
