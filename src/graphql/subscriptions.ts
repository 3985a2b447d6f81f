/**
 * `Subscription.orderUpdated` over Server-Sent Events (Yoga serves the GraphQL over SSE protocol): the
 * core's order watch, ended by the client going away, the idle time-out or the server's drain. Each event
 * is executed afresh: its own time budget and its own loaders (an order read for one event is not the
 * answer for the next).
 */
import type { Resolvers } from '../../generated/graphql/resolvers.js';
import type { OrderWatch } from '../core/events/order-watch.js';
import type { StoredEvent } from '../core/shared/events.js';
import { given, idOf } from './arguments.js';
import { createLoaders, type GraphQLContext } from './context.js';

/** What subscriptions need beside the core (absent: the server serves no subscriptions). */
export interface SubscriptionSettings {
  orderWatch: OrderWatch;
  /** A subscription that delivered nothing for this long is completed. */
  idleMs: number;
  /** Aborts when the server starts draining: every open subscription is completed. */
  draining: AbortSignal;
}

/** The context of an operation on a server that serves subscriptions. */
export interface SubscriptionContext extends GraphQLContext {
  subscriptions?: SubscriptionSettings;
  request?: Request;
}

/** What the source yields instead of an event when it failed (its key stopped working): `resolve` throws it. */
class Ended {
  constructor(readonly error: unknown) {}
}

/** The events of `source`, then its failure as one last item (a `next` with the error, then `complete`). */
async function* endingWithItsError<T>(source: AsyncIterable<T>): AsyncGenerator<T | Ended> {
  try {
    yield* source;
  } catch (error) {
    yield new Ended(error);
  }
}

/** The events of `source` until `signal` aborts or none came for `idleMs`; `stop` aborts the source's signal. */
async function* untilIdle<T>(source: AsyncIterable<T>, idleMs: number, stop: () => void): AsyncGenerator<T> {
  let idle = setTimeout(stop, idleMs);
  try {
    for await (const item of source) {
      clearTimeout(idle);
      yield item;
      idle = setTimeout(stop, idleMs);
    }
  } finally {
    clearTimeout(idle);
    stop();
  }
}

/**
 * A signal `AbortSignal.any` takes: the request's own comes from the HTTP adapter's Request, which recent
 * Node lines (24.x) refuse there as not an `AbortSignal` (it is not branded by this Node's own
 * AbortController); a signal of this process's own follows it instead.
 */
function native(signal: AbortSignal): AbortSignal {
  const follower = new AbortController();
  if (signal.aborted) follower.abort(signal.reason);
  else signal.addEventListener('abort', () => follower.abort(signal.reason), { once: true });
  return follower.signal;
}

/** The resolvers of `Subscription` and `OrderEvent`. */
export const subscriptionResolvers: Pick<Resolvers, 'Subscription' | 'OrderEvent'> = {
  Subscription: {
    orderUpdated: {
      async subscribe(_, args, context: SubscriptionContext) {
        const settings = context.subscriptions;
        if (!settings) throw new Error('subscriptions are not served');
        const ended = new AbortController();
        const signals = [ended.signal, settings.draining, ...(context.request ? [native(context.request.signal)] : [])];
        const signal = AbortSignal.any(signals);
        const id = given(args.id) ? idOf(args.id, 'ORDER_NOT_FOUND', 'order') : undefined;
        const events = await settings.orderWatch.follow(context.caller, id, signal);
        return untilIdle(endingWithItsError(events), settings.idleMs, () => ended.abort());
      },
      resolve(event: StoredEvent | Ended, _args: unknown, context: SubscriptionContext) {
        if (event instanceof Ended) throw event.error;
        // A fresh budget and fresh loaders per event: the subscription itself has no time-out.
        context.timeBudget.end();
        context.timeBudget = context.timeBudget.renewed();
        context.loaders = createLoaders(context.core, context.caller);
        return event as never;
      },
    },
  },
  OrderEvent: {
    id: (event) => (event as unknown as StoredEvent).id,
    type: (event) => (event as unknown as StoredEvent).type,
    createdAt: (event) => (event as unknown as StoredEvent).createdAt.toISOString(),
    changes: (event) => (event as unknown as StoredEvent).data.changes ?? [],
    order: (event, _, context) => {
      const id = Number((event as unknown as StoredEvent).subject.split(':')[1]);
      return context.loaders.order.load(id);
    },
  },
};
