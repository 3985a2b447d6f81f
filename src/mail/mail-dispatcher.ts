/**
 * The notice mail dispatcher of an instance: claims due mails of the outbox (any number of instances share
 * it through FOR UPDATE SKIP LOCKED and a lease), sends each once through the mailer, records the outcome
 * the core decides (sent, retried after a back-off, or given up). Woken by the event feed when a notice
 * event commits (its mail was queued in the same transaction), and by a poll for retries and missed wake-ups.
 */
import { type MailResult, mailAttemptRecord } from '../core/events/mail-delivery.js';
import type { ClaimedMail, MailAttemptRecord, Mailer, NoticeMailStore } from '../core/ports/mail.js';

/** Mails claimed (and sent side by side) at once by one instance. */
const BATCH = 5;

/** What the dispatcher is built from. */
export interface MailDispatcherOptions {
  store: NoticeMailStore;
  mailer: Mailer;
  /** Seconds before each retry; then the mail is given up (SMTP_RETRY_SECONDS). */
  schedule: readonly number[];
  pollMs: number;
  /** How long a claim holds a mail: longer than an attempt can take (a crashed instance's claim lapses then). */
  leaseMs: number;
  /** The longest an attempt may take (a server that hangs): then it counts as failed. */
  attemptTimeoutMs: number;
  onError: (error: unknown) => void;
  /** Told each recorded attempt (the server logs the failed ones). */
  onRecord?: (record: MailAttemptRecord) => void;
  now?: () => Date;
}

/** One attempt: the mailer's answer, or the reason it failed (with the SMTP reply code when there was one). */
async function attempt(mailer: Mailer, mail: ClaimedMail, timeoutMs: number): Promise<MailResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the SMTP server within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      mailer.send({ to: mail.to, subject: mail.subject, text: mail.text, messageId: `<${mail.eventId}@order-api>` }),
      timeout,
    ]);
    return { error: null };
  } catch (error) {
    const { message, responseCode } = error as { message?: unknown; responseCode?: unknown };
    return {
      error: (typeof message === 'string' ? message : String(error)).slice(0, 500),
      ...(typeof responseCode === 'number' ? { responseCode } : {}),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Creates a dispatcher; `start` begins polling, `wake` runs a round now, `stop` waits for the one in flight. */
export function createMailDispatcher(options: MailDispatcherOptions) {
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const round = async () => {
    for (;;) {
      const claimed = await options.store.claimDue(BATCH, options.leaseMs);
      await Promise.all(
        claimed.map(async (mail) => {
          const result = await attempt(options.mailer, mail, options.attemptTimeoutMs);
          const record = mailAttemptRecord(mail, result, { now: now(), schedule: options.schedule });
          await options.store.record(record);
          options.onRecord?.(record);
        }),
      );
      if (claimed.length < BATCH || stopped) return;
    }
  };

  const wake = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = round()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          void wake();
        }
      });
    return running;
  };

  return {
    start() {
      timer = setInterval(() => void wake(), options.pollMs);
      timer.unref();
      void wake();
    },
    wake,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

/** A notice mail dispatcher. */
export type MailDispatcher = ReturnType<typeof createMailDispatcher>;
