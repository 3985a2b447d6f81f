import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { WebhookStore } from '../core/ports/index.js';
import { createWebhookDispatcher } from './dispatcher.js';
import { createWebhookSender } from './http-sender.js';

/** Starts the instance's webhook dispatcher as configured; the server stops it on drain. */
export function startWebhookDispatcher(store: WebhookStore, config: Config, logger: Logger) {
  const dispatcher = createWebhookDispatcher({
    store,
    send: createWebhookSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }),
    schedule: config.WEBHOOK_RETRY_SECONDS,
    pollMs: config.WEBHOOK_POLL_MS,
    onError: (error) => logger.warn({ err: error }, 'webhook dispatch failed'),
  });
  dispatcher.start();
  return dispatcher;
}
