import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { eventItemIndex, registryTouchesEvents } from '@order-api/contract-registry/matching';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { UsageCount } from '../core/lifecycle/deprecation-policy.js';
import { createDeliveryDeprecations } from '../core/lifecycle/event-deprecations.js';
import type { UsageRecorder } from '../core/lifecycle/usage/usage-recorder.js';
import type { Store, WebhookStore } from '../core/ports/index.js';
import { versionMounts } from '../http/version-mounts.js';
import type { Metrics } from '../observability/metrics.js';
import { createRateLimiter } from '../redis/rate-limiter.js';
import { createEventFeed, type EventFeed } from '../store/event-feed.js';
import type { EventWakeups } from '../store/event-wakeups.js';
import { createWebhookDispatcher, type DispatcherOptions, type OwnerBudget } from '../webhooks/dispatcher.js';
import { createWebhookSender } from '../webhooks/http-sender.js';
import { startMailDispatcher } from './start-mail-dispatcher.js';

/** A claim holds a delivery this many attempt time-outs (60 s by default): longer than an attempt can take. */
const LEASE_PER_TIMEOUT = 6;

/**
 * Starts the instance's webhook dispatcher as configured, woken by the process's event feed whenever an
 * event commits (its deliveries were queued in the same transaction) and by its own poll for retries.
 * The server stops it on drain.
 */
export function startWebhookDispatcher(
  store: WebhookStore,
  feed: EventFeed,
  config: Config,
  logger: Logger,
  { deprecations, onAccepted }: Pick<DispatcherOptions, 'deprecations' | 'onAccepted'> = {},
  onDeferred: () => void = () => undefined,
) {
  const owners = ownerBudgets(config, logger, onDeferred);
  const send = createWebhookSender({
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  const dispatcher = createWebhookDispatcher({
    deprecations,
    onAccepted,
    store,
    send,
    leaseMs: LEASE_PER_TIMEOUT * config.WEBHOOK_TIMEOUT_MS,
    schedule: config.WEBHOOK_RETRY_SECONDS,
    pollMs: config.WEBHOOK_POLL_MS,
    onError: (error) => logger.warn({ err: error }, 'webhook dispatch failed'),
    ownerBudget: owners.budget,
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
      await owners.close();
    },
  };
}

/**
 * Each endpoint owner's delivery budget: WEBHOOK_DELIVERIES_PER_MINUTE, refilled continuously, kept as the
 * rate budgets are (shared by every instance through REDIS_URL, else per instance).
 */
function ownerBudgets(config: Config, logger: Logger, onDeferred: () => void) {
  const limiter = createRateLimiter({
    windowSeconds: 60,
    logger,
    keyPrefix: `${config.RATE_LIMIT_KEY_PREFIX}:webhook-deliveries`,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    breakerMs: config.REDIS_BREAKER_MS,
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  });
  const quota = config.WEBHOOK_DELIVERIES_PER_MINUTE;
  const budget: OwnerBudget = {
    take: (ownerUserId, perMinute) => limiter.charge({ subject: `owner:${ownerUserId}`, quota: perMinute ?? quota }, 1),
    deferred: onDeferred,
  };
  return { budget, close: () => limiter.close() };
}

/** What webhook deliveries count the uses of deprecated and watched items with. */
export interface DeliveryUsage {
  /** The checkout whose contract the registry was built from. */
  projectRoot: string;
  registry: DeprecationRegistry;
  recorder: Pick<UsageRecorder, 'record'>;
  onCount: (count: UsageCount) => void;
  /** Counts each delivery put back because its owner's delivery budget was spent. */
  metrics?: Pick<Metrics, 'webhookDeliveriesDeferred'>;
  /** Told of each accepted delivery: the request-shape record (its webhook and payload members, for the endpoint's key). */
  onAccepted?: DispatcherOptions['onAccepted'];
}

/**
 * The deprecations of deliveries (src/core/lifecycle/event-deprecations.ts), indexed once from the registry and the
 * published JSON form of the contract (generated/contracts/openapi.json, kept equal to the YAML by
 * `npm run check:generated`; parsing the YAML again would cost a second at start). Undefined, and the
 * contract unread, when no item can touch an event.
 */
async function deliveryDeprecations(usage: DeliveryUsage, config: Config) {
  if (!registryTouchesEvents(usage.registry)) return undefined;
  const file = path.join(usage.projectRoot, 'generated/contracts/openapi.json');
  const document = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  const mounts = versionMounts(document);
  return createDeliveryDeprecations({
    index: eventItemIndex(usage.registry, document),
    recorder: usage.recorder,
    onCount: usage.onCount,
    usageBase: mounts.prefix(mounts.current),
    publicBaseUrl: config.PUBLIC_BASE_URL,
  });
}

/**
 * One event feed per process (one listener of wake-ups: a LISTEN, or a Redis subscription), and the webhook
 * dispatcher and (with SMTP_URL) the notice mail dispatcher woken by it; streams subscribe to it too.
 */
export async function startEvents(
  wakeups: EventWakeups,
  store: Store,
  config: Config,
  logger: Logger,
  usage: DeliveryUsage,
) {
  const deprecations = await deliveryDeprecations(usage, config);
  const { onAccepted } = usage;
  const feed = await createEventFeed(wakeups, store.events, { pollMs: config.EVENT_FEED_POLL_MS });
  // WEBHOOK_DISPATCH=false: an instance that only serves; other instances deliver what it queues.
  const dispatcher = config.WEBHOOK_DISPATCH
    ? startWebhookDispatcher(store.webhooks, feed, config, logger, { deprecations, onAccepted }, () =>
        usage.metrics?.webhookDeliveriesDeferred.inc(),
      )
    : undefined;
  const mail = startMailDispatcher(store.noticeMails, feed, config, logger);
  return {
    feed,
    /** Stops the dispatchers (after their attempts in flight), then the feed. */
    async stop() {
      await Promise.all([dispatcher?.stop(), mail?.stop()]);
      await feed.close();
    },
  };
}
