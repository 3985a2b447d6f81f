/** The outbox of notice e-mails in PostgreSQL: claims and the outcome of attempts (see 0017_notice_mails.sql). */
import type { NoticeMailStore } from '../core/ports/mail.js';
import type { Database } from './database.js';

/** The notice mails queue of a database. */
export function noticeMailStore(db: Database): NoticeMailStore {
  return {
    async claimDue(limit, leaseMs) {
      // SKIP LOCKED: instances claiming at once take different rows; the lease keeps a claimed mail from a
      // second attempt until this one is recorded (or its instance died and the lease ran out).
      const rows = await db.query<Record<string, unknown>>(
        `WITH due AS (
           SELECT id FROM notice_mails
            WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
            ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
         UPDATE notice_mails m SET lease_until = now() + make_interval(secs => $2::double precision / 1000)
           FROM due WHERE m.id = due.id
         RETURNING m.id, m.event_id, m.recipient, m.subject, m.body, m.attempts, m.lease_until::text AS lease`,
        [limit, leaseMs],
      );
      return rows
        .map((row) => ({
          id: Number(row.id),
          eventId: row.event_id as string,
          to: row.recipient as string,
          subject: row.subject as string,
          text: row.body as string,
          attempts: Number(row.attempts),
          lease: row.lease as string,
        }))
        .sort((a, b) => a.id - b.id);
    },

    async record({ mail, state, attemptedAt, error, nextAttemptAt }) {
      await db.query(
        `UPDATE notice_mails SET attempts = attempts + 1, state = $2, last_attempt_at = $3, last_error = $4,
                sent_at = CASE WHEN $2 = 'succeeded' THEN $3::timestamptz END,
                next_attempt_at = COALESCE($5, next_attempt_at), lease_until = NULL
          WHERE id = $1 AND state = 'pending' AND lease_until::text = $6`,
        [mail.id, state, attemptedAt.toISOString(), error, nextAttemptAt?.toISOString() ?? null, mail.lease],
      );
    },
  };
}
