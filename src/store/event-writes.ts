import { type NewEvent, readScopeOf } from '../core/shared/events.js';
import { newEventId } from './event-store.js';

/**
 * Writing events as part of one larger statement: common table expressions from parameter `$first` on.
 * `written_events` inserts the events (in the order given, so `seq` follows it) and returns their rows;
 * `queued_deliveries` queues one webhook delivery per matching endpoint; `notified` sends the PostgreSQL
 * wake-up when the writer's transaction commits (with `notifyChannel`; Redis wake-ups travel after commit).
 * The statement must evaluate `touch` in its result, or PostgreSQL never runs `notified`.
 */
export interface EventWriteSql {
  /** The CTE definitions, to follow `WITH` after the statement's own (none without events). */
  ctes: string[];
  params: unknown[];
  /** An expression of the result that makes the statement send its wake-up. */
  touch: string;
}

/**
 * Which endpoint takes which event: one of its types, an admin's endpoint or the event owner's, while the
 * key that registered it works (neither revoked nor expired; a rotation hands its endpoints to the
 * successor) and holds the scope the event needs (`readScopeOf`; a key without a scope list holds all
 * its role allows). An endpoint registered without a key (an operator command) follows its owner's role.
 */
const QUEUED_DELIVERIES = (events: string) => `queued_deliveries AS (
    INSERT INTO webhook_deliveries (endpoint_id, event_id)
    SELECT w.id, e.id FROM written_events e
      JOIN jsonb_array_elements(${events}::jsonb) AS wanted(event) ON wanted.event->>'id' = e.id
      JOIN webhook_endpoints w ON e.type = ANY (w.events) AND w.disabled_reason IS NULL
       AND (w.all_owners OR w.user_id = e.owner_user_id)
       AND (w.api_key_id IS NULL OR EXISTS (
             SELECT 1 FROM api_keys k
              WHERE k.id = w.api_key_id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
                AND (wanted.event->>'scope' IS NULL OR k.scopes IS NULL OR wanted.event->>'scope' = ANY (k.scopes)))))`;

/** The SQL that writes `events` inside a statement whose own parameters end before `$first`. */
export function eventWriteSql(
  events: readonly NewEvent[],
  notifyChannel: string | undefined,
  first: number,
): EventWriteSql {
  if (events.length === 0) return { ctes: [], params: [], touch: '0' };
  const rows = events.map((event) => ({
    id: newEventId(),
    type: event.type,
    owner: event.ownerUserId,
    subject: event.subject,
    data: event.data,
    scope: readScopeOf(event.type) ?? null,
  }));
  const ctes = [
    `written_events AS (
      INSERT INTO events (id, type, owner_user_id, subject, data)
      SELECT event->>'id', event->>'type', (event->>'owner')::bigint, event->>'subject', event->'data'
        FROM jsonb_array_elements($${first}::jsonb) WITH ORDINALITY AS written(event, position) ORDER BY position
      RETURNING seq, tx_id::text::bigint AS tx_id, id, type, created_at, owner_user_id, subject, data)`,
    QUEUED_DELIVERIES(`$${first}`),
  ];
  const params: unknown[] = [JSON.stringify(rows)];
  if (notifyChannel === undefined) return { ctes, params, touch: '0' };
  ctes.push(`notified AS (SELECT pg_notify($${first + 1}, ''))`);
  params.push(notifyChannel);
  return { ctes, params, touch: '(SELECT count(*) FROM notified)' };
}
