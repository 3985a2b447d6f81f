import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CommitHooks, EventWakeups } from '../core/ports/index.js';

/** Options of the Redis wake-ups. */
export interface RedisWakeupsOptions {
  /** `redis://…` (REDIS_URL). */
  url: string;
  /** The pub/sub channel: every instance over one database must use the same one, other databases another. */
  channel: string;
  logger: Logger;
  /** The feed's poll interval, named in the log and the degradation (what a lost wake-up costs). */
  pollMs: number;
}

// A wake-up carries nothing: a message is never parsed, whatever another publisher put in it.
const serializer = { stringify: () => '', parse: () => null };

/**
 * The event target of `@graphql-yoga/redis-event-target` over one connection that publishes and one that
 * subscribes. The target drops the promises of PUBLISH, SUBSCRIBE and UNSUBSCRIBE (3.0.4), and a rejected
 * one (Redis away) is an unhandled rejection that ends a Node process; so it is given the three commands it
 * uses, each reporting its failure to `onFailure` instead.
 */
function wakeupTarget(publisher: Redis, subscriber: Redis, onFailure: (error: Error) => void) {
  const reported = (command: Promise<unknown>) => command.catch(onFailure);
  const publishClient = {
    publish: (channel: string, message: string) => reported(publisher.publish(channel, message)),
  };
  const subscribeClient = {
    on: (event: 'message', listener: (channel: string, message: string) => void) => subscriber.on(event, listener),
    // A SUBSCRIBE that fails (a connection timing out on a busy start) is not retried by ioredis, which
    // re-subscribes after a reconnection only what had succeeded: try again until it holds.
    subscribe: function subscribe(channel: string): Promise<unknown> {
      return subscriber.subscribe(channel).catch((error: Error) => {
        onFailure(error);
        if (subscriber.status !== 'end') setTimeout(() => void subscribe(channel), 500).unref();
      });
    },
    unsubscribe: (channel: string) => reported(subscriber.unsubscribe(channel)),
  };
  return createRedisEventTarget<CustomEvent>({
    publishClient: publishClient as unknown as Redis,
    subscribeClient: subscribeClient as unknown as Redis,
    serializer,
  });
}

/**
 * Wake-ups over Redis pub/sub: the writing transaction publishes one message once it committed (nothing in
 * the transaction, no NOTIFY), and a dedicated subscriber connection wakes the feed, so the instance holds
 * no PostgreSQL LISTEN connection. While Redis is away writes and streams go on: a publish that fails is
 * logged (once per outage) and the feeds find the rows at their next poll; when the subscriber connection
 * is back (ioredis subscribes again) the feed looks at once, for what it missed.
 */
export function createRedisWakeups({ url, channel, logger, pollMs }: RedisWakeupsOptions): EventWakeups {
  const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2_000);
  // A publish made while the connection is down waits for one reconnection at most, then fails: a blip
  // delays its wake-up, an outage leaves the work to the poll, and the queue holds a few seconds of commits.
  const publisher = new Redis(url, { connectTimeout: 500, maxRetriesPerRequest: 1, retryStrategy });
  // The SUBSCRIBE of a start while Redis is away waits for it (never given up), then ioredis keeps it.
  // No ready check: ioredis writes a SUBSCRIBE at once on a connection still being set up, and in subscriber
  // mode the check's INFO is refused; ioredis then reconnects and, the connection never having been ready,
  // forgets the subscription, so every later wake-up is lost (ioredis 5.9). Without the check the connection
  // is ready once its set-up is answered, and a reconnection subscribes again.
  const subscriber = new Redis(url, {
    connectTimeout: 500,
    maxRetriesPerRequest: null,
    retryStrategy,
    enableReadyCheck: false,
  });
  let warned = false;
  let closing = false;
  const warn = (reason: string) => {
    if (!warned && !closing)
      logger.warn({ reason, pollMs }, 'Redis unreachable: event wake-ups wait for the poll until it returns');
    warned = true;
  };
  const target = wakeupTarget(publisher, subscriber, (error) => warn(error.message));
  for (const client of [publisher, subscriber]) {
    client.on('error', (error: Error) => warn(error.message));
    client.on('close', () => warn('connection closed'));
    client.on('ready', () => {
      if (warned && publisher.status === 'ready' && subscriber.status === 'ready') {
        logger.info('Redis is back: event wake-ups travel over it again');
        warned = false;
      }
    });
  }
  const announced = new WeakSet<CommitHooks>();
  const publish = () => target.dispatchEvent(new CustomEvent(channel));

  return {
    notifyChannel: undefined,
    async announce(tx) {
      if (announced.has(tx)) return;
      announced.add(tx);
      tx.afterCommit(publish);
    },
    async listen(onWake) {
      const wake = () => onWake();
      target.addEventListener(channel, wake);
      subscriber.on('ready', wake);
      // The target sends SUBSCRIBE without waiting for it: a wake-up published before Redis confirms it is
      // lost, and the feed would wait for its poll. Wait for the confirmation (a second at most: Redis may
      // be away, and ioredis subscribes once it is back), then look once, for what that window missed.
      await Promise.race([
        subscriber.subscribe(channel).then(wake, () => undefined),
        sleep(1000, undefined, { ref: false }),
      ]);
      return async () => {
        subscriber.off('ready', wake);
        target.removeEventListener(channel, wake);
      };
    },
    degraded: () =>
      publisher.status === 'ready' && subscriber.status === 'ready'
        ? undefined
        : `Redis (REDIS_URL) is unreachable: event wake-ups wait for the feed's poll (every ${pollMs} ms) until it returns`,
    async close() {
      closing = true;
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
