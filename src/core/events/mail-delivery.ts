/** What an attempt to mail a notice means for it: sent, retried after a back-off, or given up. */
import type { ClaimedMail, MailAttemptRecord } from '../ports/index.js';

/** How an attempt ended, as the sender saw it: `error` null when the SMTP server accepted the message. */
export interface MailResult {
  error: string | null;
  /** The SMTP reply code of a refusal, when the server gave one. */
  responseCode?: number;
}

/**
 * A refusal that retrying cannot mend: a 5xx reply (e.g. 550 no such mailbox), as a mail server decides,
 * except 503 (bad sequence of commands, often a broken session).
 */
export const isPermanentRefusal = (responseCode: number | undefined) =>
  responseCode !== undefined && responseCode >= 500 && responseCode < 600 && responseCode !== 503;

/** The record of attempt number `mail.attempts + 1`: the next attempt from `schedule`, or none. */
export function mailAttemptRecord(
  mail: ClaimedMail,
  result: MailResult,
  { now, schedule }: { now: Date; schedule: readonly number[] },
): MailAttemptRecord {
  const done = { mail, attemptedAt: now, nextAttemptAt: null };
  if (result.error === null) return { ...done, state: 'succeeded', error: null };
  const { error } = result;
  const wait = isPermanentRefusal(result.responseCode) ? undefined : schedule[mail.attempts];
  if (wait === undefined) return { ...done, state: 'failed', error };
  return { ...done, state: 'pending', error, nextAttemptAt: new Date(now.getTime() + wait * 1000) };
}
