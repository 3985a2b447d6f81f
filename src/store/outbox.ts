import { createEventPolicy, type EventPolicy } from '../core/event-policy.js';
import { type NewEvent, readScopeOf, type StoredEvent } from '../core/events.js';
import type { Database, Queryable, Transaction } from './database.js';
import { appendEvents } from './event-store.js';
import { type EventWakeups, notifyWakeups } from './event-wakeups.js';

/**
 * Writes events in the caller's transaction and queues one delivery per matching enabled endpoint in the
 * same transaction: an endpoint takes an event of one of its types when it belongs to an admin, or to the
 * event's owner, and while the key that registered it works (neither revoked nor expired; a rotation hands
 * its endpoints to the successor) and holds the scope the event needs (`readScopeOf`; a key without a scope
 * list holds all its role allows). An endpoint registered without a key (by an operator command) follows its
 * owner's role alone. A crash after commit loses nothing; the dispatcher finds the queued rows.
 */
export async function writeEvents(
  tx: Transaction,
  wakeups: Outbox['wakeups'],
  events: readonly NewEvent[],
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const stored = await appendEvents(tx, wakeups, events);
  await tx.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id)
     SELECT w.id, e.id FROM events e JOIN webhook_endpoints w
       ON e.type = ANY (w.events) AND w.disabled_reason IS NULL
      AND (w.all_owners OR w.user_id = e.owner_user_id)
     JOIN unnest($1::text[], $2::text[]) AS wanted(id, scope) ON wanted.id = e.id
      AND (w.api_key_id IS NULL OR EXISTS (
            SELECT 1 FROM api_keys k
             WHERE k.id = w.api_key_id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
               AND (wanted.scope IS NULL OR k.scopes IS NULL OR wanted.scope = ANY (k.scopes))))
      WHERE e.id = ANY ($1::text[])`,
    [stored.map((event) => event.id), stored.map((event) => readScopeOf(event.type))],
  );
  return stored;
}

/** A key that used an item recently, with its owner and the owner's e-mail address. */
export interface CallerKey {
  apiKeyId: number;
  userId: number;
  email: string | null;
}

/**
 * The keys (with their owners) that used an item from `sinceDay` on — the item itself, or tried during a
 * brownout; not its replacement — by key id: the callers every notice about the item goes to (a brownout's
 * `brownout.scheduled`, and a `deprecation.announced` that names no keys). The one query of that set.
 */
export async function recentCallerKeys(tx: Queryable, item: string, sinceDay: string): Promise<CallerKey[]> {
  const rows = await tx.query<{ api_key_id: number; user_id: number; email: string | null }>(
    `SELECT DISTINCT k.id AS api_key_id, users.id AS user_id, users.email FROM deprecation_usage u
       JOIN api_keys k ON k.id = u.api_key_id JOIN users ON users.id = k.user_id
      WHERE u.item = $1 AND u.day >= $2::date AND u.kind <> 'replacement' ORDER BY k.id`,
    [item, sinceDay],
  );
  return rows.map((row) => ({ apiKeyId: Number(row.api_key_id), userId: Number(row.user_id), email: row.email }));
}

/** The core's event policy with the instance's event wake-ups: what the writing stores need. */
export type Outbox = EventPolicy & { wakeups: Pick<EventWakeups, 'announce'> };

/** The outbox of a database with the default policy and NOTIFY wake-ups (tools and tests that do not write orders). */
export const sqlOutbox = (db: Database): Outbox => ({
  ...createEventPolicy({ vatRate: 0.1 }),
  wakeups: notifyWakeups(db),
});
