import { createEventPolicy, type EventPolicy } from '../core/events/event-policy.js';
import type { NewEvent, StoredEvent } from '../core/shared/events.js';
import type { Database, Queryable, Transaction } from './database.js';
import { type EventRow, toEvent } from './event-store.js';
import { type EventWakeups, notifyWakeups } from './event-wakeups.js';
import { eventWriteSql } from './event-writes.js';

/**
 * Writes events in the caller's transaction in one statement (`eventWriteSql`): the events, one queued
 * delivery per matching endpoint, and the wake-up of every feed once the transaction commits. A crash
 * after commit loses nothing; the dispatcher finds the queued rows.
 */
export async function writeEvents(
  tx: Transaction,
  wakeups: Outbox['wakeups'],
  events: readonly NewEvent[],
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const written = eventWriteSql(events, wakeups.notifyChannel, 1);
  const rows = await tx.query<EventRow>(
    `WITH ${written.ctes.join(',\n')} SELECT e.*, ${written.touch} AS notified FROM written_events e ORDER BY seq`,
    written.params,
  );
  await wakeups.announce(tx);
  return rows.map(toEvent);
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
export type Outbox = EventPolicy & { wakeups: Pick<EventWakeups, 'announce' | 'notifyChannel'> };

/** The outbox of a database with the default policy and NOTIFY wake-ups (tools and tests that do not write orders). */
export const sqlOutbox = (db: Database): Outbox => ({
  ...createEventPolicy({ vatRate: 0.1 }),
  wakeups: notifyWakeups(db),
});
