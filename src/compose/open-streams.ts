import { setMaxListeners } from 'node:events';
import type { Config } from '../config.js';
import { createOrderWatch } from '../core/events/order-watch.js';
import { createStockWatch } from '../core/events/stock-watch.js';
import type { Core } from '../core/index.js';
import type { Store } from '../core/ports/index.js';
import type { Caller } from '../core/shared/caller.js';
import type { EventFeed } from '../store/event-feed.js';

/**
 * The instance's streams over its one event feed (one listener of wake-ups per process, shared with the
 * webhook dispatcher): GraphQL subscriptions and WatchStock, and the signal that ends them all when the
 * drain starts, so that they do not hold it.
 */
export function openStreams(feed: EventFeed, store: Store, core: Core, config: Config) {
  const draining = new AbortController();
  // Every open stream follows this signal (a listener each while it is open): not a leak.
  setMaxListeners(0, draining.signal);
  const stillValid = (caller: Caller) => core.apiKeys.stillValid(caller);
  const subscriptions = {
    orderWatch: createOrderWatch({
      events: feed,
      getOrder: (caller, id) => core.orders.get(caller, id),
      maxPerKey: config.GRAPHQL_SUBSCRIPTIONS_PER_KEY,
      stillValid,
    }),
    idleMs: config.GRAPHQL_SUBSCRIPTION_IDLE_MS,
    draining: draining.signal,
  };
  return {
    draining,
    subscriptions,
    watchStock: createStockWatch({ inventory: store.inventory, events: feed, stillValid }),
  };
}
