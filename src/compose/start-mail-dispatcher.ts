import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { NoticeMailStore } from '../core/ports/mail.js';
import { createMailDispatcher } from '../mail/mail-dispatcher.js';
import { smtpMailer } from '../mail/smtp-mailer.js';
import type { EventFeed } from '../store/event-feed.js';

/** A claim holds a mail this many SMTP time-outs (60 s by default): longer than an attempt can take. */
const LEASE_PER_TIMEOUT = 6;
/** An attempt may take this many SMTP time-outs in all (connect, greeting, the message), then it has failed. */
const ATTEMPT_PER_TIMEOUT = 3;

/**
 * Starts the instance's notice mail dispatcher when SMTP_URL is set (else there is nothing to send: no mail
 * is queued), woken by the process's event feed when a notice event commits and by its own poll for
 * retries. The server stops it on drain.
 */
export function startMailDispatcher(store: NoticeMailStore, feed: EventFeed, config: Config, logger: Logger) {
  if (!config.SMTP_URL) return undefined;
  const dispatcher = createMailDispatcher({
    store,
    mailer: smtpMailer(config.SMTP_URL, config.SMTP_FROM, { timeoutMs: config.SMTP_TIMEOUT_MS }),
    schedule: config.SMTP_RETRY_SECONDS,
    pollMs: config.SMTP_POLL_MS,
    leaseMs: LEASE_PER_TIMEOUT * config.SMTP_TIMEOUT_MS,
    attemptTimeoutMs: ATTEMPT_PER_TIMEOUT * config.SMTP_TIMEOUT_MS,
    onError: (error) => logger.warn({ err: error }, 'notice mail dispatch failed'),
    onRecord: ({ mail, state, error }) => {
      if (state !== 'succeeded')
        logger.warn({ mailId: mail.id, eventId: mail.eventId, state, error }, 'notice mail not sent');
    },
  });
  const stopWaking = new AbortController();
  const waking = (async () => {
    const notices = feed.subscribe({ types: ['deprecation.announced', 'brownout.scheduled'] }, stopWaking.signal);
    for await (const _event of notices) void dispatcher.wake();
  })().catch((error: unknown) => logger.warn({ err: error }, 'notice mail wake-ups stopped; polling only'));
  dispatcher.start();
  return {
    async stop() {
      stopWaking.abort();
      await Promise.all([waking, dispatcher.stop()]);
    },
  };
}
