import type { WebhookAttempt, WebhookLimits, WebhookStore } from '../core/ports/webhooks.js';
import type { EventType } from '../core/shared/events.js';
import type { Database } from './database.js';
import type { Outbox } from './outbox.js';
import { deliveryStore } from './webhook-delivery-store.js';
import { NOW, toEndpoint } from './webhook-rows.js';

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

/**
 * Changes an endpoint (`$2` URL, `$3` events, `$5` disabled reason when `$4`); disabling stops what is
 * queued too, and re-enabling resumes with new events (the contract).
 */
const UPDATE_ENDPOINT = `WITH stopped AS (
           UPDATE webhook_deliveries SET state = 'failed', lease_until = NULL
            WHERE endpoint_id = $1 AND state = 'pending' AND $4 AND $5::text IS NOT NULL)
         UPDATE webhook_endpoints SET url = COALESCE($2, url), events = COALESCE($3, events),
                disabled_reason = CASE WHEN $4 THEN $5 ELSE disabled_reason END,
                failing_since = CASE WHEN $4 THEN NULL ELSE failing_since END, updated_at = ${NOW}
          WHERE id = $1 RETURNING *`;

const LIMITS = 'SELECT id, webhook_max_endpoints, webhook_deliveries_per_minute FROM users WHERE id = $1';
const toLimits = (row: Record<string, unknown>): WebhookLimits => ({
  userId: Number(row.id),
  endpoints: (row.webhook_max_endpoints as number | null) ?? null,
  deliveriesPerMinute: (row.webhook_deliveries_per_minute as number | null) ?? null,
});

/** Webhook endpoints, deliveries and attempts in PostgreSQL (`wakeups` announce the event of an endpoint disabled). */
export function webhookStore(db: Database, wakeups: Outbox['wakeups']): WebhookStore {
  return { ...endpointStore(db), ...limitStore(db), ...deliveryStore(db, wakeups) };
}

/** What the delivery queue's store (./webhook-delivery-store.ts) implements. */
type DeliveryPart = keyof ReturnType<typeof deliveryStore>;

/** What an admin set for one owner (`WebhookLimits`), on its user row. */
function limitStore(db: Database): Pick<WebhookStore, 'limits' | 'setLimits'> {
  return {
    async limits(userId) {
      const rows = await db.query(LIMITS, [userId]);
      return rows[0] && toLimits(rows[0]);
    },
    async setLimits(userId, { endpoints, deliveriesPerMinute }) {
      const rows = await db.query(
        `UPDATE users SET webhook_max_endpoints = $2, webhook_deliveries_per_minute = $3 WHERE id = $1
          RETURNING id, webhook_max_endpoints, webhook_deliveries_per_minute`,
        [userId, endpoints, deliveriesPerMinute],
      );
      return rows[0] && toLimits(rows[0]);
    },
  };
}

/** The endpoints and their log. */
function endpointStore(db: Database): Omit<WebhookStore, keyof ReturnType<typeof limitStore> | DeliveryPart> {
  return {
    insert: ({ userId, apiKeyId, allOwners, url, events, description, secret }, maxPerOwner) =>
      db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
        const [held] = await tx.query<{ count: number; taken: boolean | null }>(
          'SELECT count(*) AS count, bool_or(url = $2) AS taken FROM webhook_endpoints WHERE user_id = $1',
          [userId, url],
        );
        if (held?.taken) return 'url-taken' as const;
        if (Number(held?.count) >= maxPerOwner) return 'limit-reached' as const;
        const rows = await tx.query(
          `INSERT INTO webhook_endpoints (user_id, api_key_id, all_owners, url, events, description, secret)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
          [userId, apiKeyId, allOwners, url, events, description, secret],
        );
        return toEndpoint(rows[0] as Record<string, unknown>);
      }),
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
      const rows = await db.query(UPDATE_ENDPOINT, [
        id,
        fields.url ?? null,
        fields.events ?? null,
        fields.disabledReason !== undefined,
        fields.disabledReason ?? null,
      ]);
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
    hasUrl: (userId, url, exceptId) => hasUrl(db, userId, url, exceptId),
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

/** Whether the user already has an endpoint with this URL (other than `exceptId`). */
async function hasUrl(db: Database, userId: number, url: string, exceptId = 0): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM webhook_endpoints WHERE user_id = $1 AND url = $2 AND id <> $3 LIMIT 1', [
    userId,
    url,
    exceptId,
  ]);
  return rows.length > 0;
}
