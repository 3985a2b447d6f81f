/**
 * Notices to callers in the outbox: one event per notified user (its webhook deliveries queued with it) and,
 * when the server mails, one e-mail per such user with an address, queued in `notice_mails` in the same
 * transaction. A crash after the commit loses nothing: the dispatchers find the queued rows.
 */

import type { ComposeMail } from '../core/ports/mail.js';
import type { NewEvent } from '../core/shared/events.js';
import type { Transaction } from './database.js';
import { type CallerKey, type Outbox, writeEvents } from './outbox.js';

/** A user a notice goes to. */
export type NoticeOwner = Pick<CallerKey, 'userId' | 'email'>;

/** The distinct owners of these keys, by user id. */
export function ownersOf(keys: ReadonlyArray<NoticeOwner>): NoticeOwner[] {
  const owners = new Map<number, NoticeOwner>();
  for (const { userId, email } of keys) if (!owners.has(userId)) owners.set(userId, { userId, email });
  return [...owners.values()].sort((a, b) => a.userId - b.userId);
}

/**
 * Writes the notice events (`events[i]` is the one of `owners[i]`) with their webhook deliveries and, with
 * `mail`, one e-mail per owner with an address composed for that owner's event, in the caller's
 * transaction. Returns each owner's event id.
 */
export async function writeNoticeEvents(
  tx: Transaction,
  wakeups: Outbox['wakeups'],
  events: readonly NewEvent[],
  owners: readonly NoticeOwner[],
  mail?: ComposeMail,
): Promise<Map<number, string>> {
  const written = await writeEvents(tx, wakeups, events);
  const eventOf = new Map(owners.map((owner, index) => [owner.userId, written[index]?.id as string]));
  const mails = mail
    ? owners.flatMap(({ userId, email }) => {
        const eventId = eventOf.get(userId) as string;
        return email ? [{ eventId, to: email, ...mail(eventId) }] : [];
      })
    : [];
  if (mails.length > 0) {
    await tx.query(
      `INSERT INTO notice_mails (event_id, recipient, subject, body)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [mails.map((m) => m.eventId), mails.map((m) => m.to), mails.map((m) => m.subject), mails.map((m) => m.text)],
    );
  }
  return eventOf;
}
