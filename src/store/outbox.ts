import type { EventPolicy } from '../core/event-policy.js';
import type { NewEvent } from '../core/events.js';
import type { Queryable } from './database.js';
import { appendEvents } from './event-store.js';

/**
 * Writes events in the caller's transaction and queues one delivery per matching enabled endpoint in the
 * same transaction: an endpoint takes an event of one of its types when it belongs to an admin, or to the
 * event's owner. A crash after commit loses nothing; the dispatcher finds the queued rows.
 */
export async function writeEvents(tx: Queryable, channel: string, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const stored = await appendEvents(tx, channel, events);
  await tx.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id)
     SELECT w.id, e.id FROM events e JOIN webhook_endpoints w
       ON e.type = ANY (w.events) AND w.disabled_reason IS NULL
      AND (w.all_owners OR w.user_id = e.owner_user_id)
      WHERE e.id = ANY ($1::text[])`,
    [stored.map((event) => event.id)],
  );
}

/** The core's event policy with the notification channel of this database: what the writing stores need. */
export type Outbox = EventPolicy & { channel: string };
