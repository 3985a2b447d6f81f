import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store, WebhookStore } from '../core/ports/index.js';
import type { Database } from '../store/database.js';
import { createEventFeed, type EventFeed } from '../store/event-feed.js';
import { createWebhookDispatcher } from './dispatcher.js';
import { createWebhookSender } from './http-sender.js';

/** A claim holds a delivery this many attempt time-outs (60 s by default): longer than an attempt can take. */
const LEASE_PER_TIMEOUT = 6;

/**
 * Starts the instance's webhook dispatcher as configured, woken by the process's event feed whenever an
 * event commits (its deliveries were queued in the same transaction) and by its own poll for retries.
 * The server stops it on drain.
 */
export function startWebhookDispatcher(store: WebhookStore, feed: EventFeed, config: Config, logger: Logger) {
  const send = createWebhookSender({
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  const dispatcher = createWebhookDispatcher({
    store,
    send,
    leaseMs: LEASE_PER_TIMEOUT * config.WEBHOOK_TIMEOUT_MS,
    schedule: config.WEBHOOK_RETRY_SECONDS,
    pollMs: config.WEBHOOK_POLL_MS,
    onError: (error) => logger.warn({ err: error }, 'webhook dispatch failed'),
  });
  const stopWaking = new AbortController();
  const waking = (async () => {
    for await (const _event of feed.subscribe({}, stopWaking.signal)) void dispatcher.wake();
  })().catch((error: unknown) => logger.warn({ err: error }, 'webhook wake-ups stopped; polling only'));
  dispatcher.start();
  return {
    async stop() {
      stopWaking.abort();
      await Promise.all([waking, dispatcher.stop()]);
      send.close();
    },
  };
}

/**
 * One event feed per process (one LISTEN), and the webhook dispatcher woken by it, unless
 * `WEBHOOK_DISPATCH=false` (an instance that only serves; other instances deliver what it queues); streams
 * subscribe to the feed either way.
 */
export async function startEvents(db: Database, store: Store, config: Config, logger: Logger) {
  const feed = await createEventFeed(db, store.events);
  const dispatcher = config.WEBHOOK_DISPATCH ? startWebhookDispatcher(store.webhooks, feed, config, logger) : undefined;
  return {
    feed,
    /** Stops the dispatcher (after its attempts in flight), then the feed. */
    async stop() {
      await dispatcher?.stop();
      await feed.close();
    },
  };
}
