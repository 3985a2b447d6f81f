/**
 * Outgoing e-mail (SMTP_URL, docs/configuration.md): notices about deprecated items to key owners. The mails
 * are queued in the transaction of their event (the outbox of notice mails) and sent by a dispatcher.
 */

/** One message to one recipient. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** A stable Message-ID, so that a message sent twice (at least once) can be told apart as one. */
  messageId?: string;
}

/** Sends mail; the server's is absent without SMTP_URL (nothing is mailed then). */
export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with the reason otherwise. */
  send(mail: Mail): Promise<void>;
}

/** The subject and text of a notice's e-mail, composed for its event (the text names the event's id). */
export type ComposeMail = (eventId: string) => { subject: string; text: string };

/** A queued e-mail claimed for one attempt. */
export interface ClaimedMail {
  id: number;
  eventId: string;
  to: string;
  subject: string;
  text: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The lease of this claim, its fence: the outcome is recorded only while the mail is pending under it. */
  lease: string;
}

/** The outcome of one attempt, to record. */
export interface MailAttemptRecord {
  mail: ClaimedMail;
  state: 'succeeded' | 'pending' | 'failed';
  attemptedAt: Date;
  /** Why it failed; null on success. */
  error: string | null;
  /** When `pending`: the next attempt. */
  nextAttemptAt: Date | null;
}

/** The outbox of notice mails: claimed by any instance's dispatcher, one attempt at a time per mail. */
export interface NoticeMailStore {
  /**
   * Claims up to `limit` due mails for `leaseMs` (FOR UPDATE SKIP LOCKED: instances claiming at once take
   * different rows; a crashed instance's claim lapses with its lease).
   */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedMail[]>;
  /**
   * Records an attempt's outcome and releases the claim, only while the mail is still pending under the
   * claim's lease (a lease that ran out and was claimed again is the new claim's to record).
   */
  record(attempt: MailAttemptRecord): Promise<void>;
}
