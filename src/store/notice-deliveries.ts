/**
 * The deliveries of notice events as they went, for the notices report: to each webhook endpoint of the
 * event's owner (from the delivery queue and the attempt log) and each e-mail (from the mail outbox).
 */
import type { NoticeDelivery } from '../core/ports/usage.js';
import type { Queryable } from './database.js';

const dateOrNull = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));

/**
 * Per endpoint of the owner (an admin's endpoint that takes every owner's events is not a delivery to the
 * caller): succeeded once any attempt got a 2xx, pending while a delivery (or a redelivery) is queued.
 */
const WEBHOOK_DELIVERIES = `
  SELECT d.event_id, d.endpoint_id,
         CASE WHEN bool_or(d.state = 'succeeded') THEN 'succeeded'
              WHEN bool_or(d.state = 'pending') THEN 'pending' ELSE 'failed' END AS state,
         a.attempts, a.last_attempt_at, a.succeeded_at, a.last_error
    FROM webhook_deliveries d
    JOIN webhook_endpoints w ON w.id = d.endpoint_id
    JOIN events e ON e.id = d.event_id AND e.owner_user_id = w.user_id
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS attempts, max(x.attempted_at) AS last_attempt_at,
             min(x.attempted_at) FILTER (WHERE x.status BETWEEN 200 AND 299) AS succeeded_at,
             (array_agg(x.error ORDER BY x.id DESC))[1] AS last_error
        FROM webhook_attempts x WHERE x.endpoint_id = d.endpoint_id AND x.event_id = d.event_id) a ON true
   WHERE d.event_id = ANY ($1::text[])
   GROUP BY d.event_id, d.endpoint_id, a.attempts, a.last_attempt_at, a.succeeded_at, a.last_error
   ORDER BY d.event_id, d.endpoint_id`;

const MAIL_DELIVERIES = `
  SELECT event_id, recipient, state, attempts, last_attempt_at, sent_at, last_error
    FROM notice_mails WHERE event_id = ANY ($1::text[]) ORDER BY event_id, id`;

/** The deliveries of each of these events: its webhook endpoints by id, then its e-mail. */
export async function readDeliveries(q: Queryable, eventIds: string[]): Promise<Map<string, NoticeDelivery[]>> {
  const byEvent = new Map<string, NoticeDelivery[]>();
  if (eventIds.length === 0) return byEvent;
  const add = (eventId: string, delivery: NoticeDelivery) =>
    byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), delivery]);
  for (const row of await q.query<Record<string, unknown>>(WEBHOOK_DELIVERIES, [eventIds])) {
    const state = row.state as NoticeDelivery['state'];
    add(row.event_id as string, {
      channel: 'webhook',
      endpointId: Number(row.endpoint_id),
      to: null,
      state,
      attempts: Number(row.attempts ?? 0),
      lastAttemptAt: dateOrNull(row.last_attempt_at),
      succeededAt: state === 'succeeded' ? dateOrNull(row.succeeded_at) : null,
      error: state === 'succeeded' ? null : ((row.last_error as string | null) ?? null),
    });
  }
  for (const row of await q.query<Record<string, unknown>>(MAIL_DELIVERIES, [eventIds])) {
    add(row.event_id as string, {
      channel: 'email',
      endpointId: null,
      to: row.recipient as string,
      state: row.state as NoticeDelivery['state'],
      attempts: Number(row.attempts),
      lastAttemptAt: dateOrNull(row.last_attempt_at),
      succeededAt: dateOrNull(row.sent_at),
      error: (row.last_error as string | null) ?? null,
    });
  }
  return byEvent;
}
