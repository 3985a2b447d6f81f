/**
 * The webhook dispatcher of an instance: claims due deliveries (any number of instances share the queue
 * through FOR UPDATE SKIP LOCKED and a lease), sends each once, records the outcome the core decides.
 * Woken by the event feed when an event commits, and by a poll for retries and missed notifications.
 */
import type { DeprecationsOfDelivery } from '../core/event-deprecations.js';
import { toEnvelope } from '../core/events.js';
import type { WebhookStore } from '../core/ports/index.js';
import { type AttemptResult, attemptRecord } from '../core/webhook-delivery.js';
import type { WebhookMessage } from './http-sender.js';

/** Deliveries claimed at once by one instance. */
const BATCH = 20;

/** What the dispatcher is built from. */
export interface DispatcherOptions {
  store: WebhookStore;
  send: (message: WebhookMessage) => Promise<AttemptResult>;
  schedule: readonly number[];
  pollMs: number;
  /** How long a claim holds a delivery: longer than an attempt can take (a crashed instance's claim lapses then). */
  leaseMs: number;
  onError: (error: unknown) => void;
  now?: () => Date;
  /**
   * The deprecated and watched items a delivery carries (src/core/event-deprecations.ts): their signal
   * headers go with each attempt, and their uses are counted once an attempt is accepted. Absent when no
   * item touches an event.
   */
  deprecations?: DeprecationsOfDelivery | undefined;
}

/** Creates a dispatcher; `start` begins polling, `wake` runs a round now, `stop` waits for the one in flight. */
export function createWebhookDispatcher(options: DispatcherOptions) {
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const round = async () => {
    for (;;) {
      const claimed = await options.store.claimDue(BATCH, options.leaseMs);
      await Promise.all(
        claimed.map(async (delivery) => {
          const envelope = toEnvelope(delivery.event);
          const deprecations = options.deprecations?.(delivery, envelope);
          const result = await options.send({
            url: delivery.endpoint.url,
            id: delivery.event.id,
            secrets: delivery.secrets,
            body: JSON.stringify(envelope),
            ...(deprecations ? { headers: deprecations.headers } : {}),
          });
          const record = attemptRecord(delivery, result, { now: now(), schedule: options.schedule });
          await options.store.record(record);
          // Counted once the accepted attempt is recorded: a retry of an unrecorded one would count again.
          if (record.state === 'succeeded') deprecations?.accepted();
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
