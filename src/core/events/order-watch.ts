/**
 * Following orders (GraphQL `Subscription.orderUpdated`): the `order.*` events a caller may see, read
 * from the outbox through the process's event feed, and a bound on how many one key follows at once.
 */

import type { EventSubscriptions } from '../ports/index.js';
import type { EventFilter, Order, StoredEvent } from '../shared/index.js';
import { type Caller, DomainError, requireCaller, type StillValid, whileKeyHolds } from '../shared/index.js';

/** What following orders needs: the feed, how to read one order as the caller, and the bound per key. */
export interface OrderWatchOptions {
  events: EventSubscriptions;
  /** Reads an order as the caller may (ORDER_NOT_FOUND for another user's). */
  getOrder(caller: Caller, id: number): Promise<Order>;
  /** Open subscriptions one API key (or one in-process caller) may hold. */
  maxPerKey: number;
  /** Whether the caller's key still holds (not expired, revoked or rotated out); see the key check. */
  stillValid: StillValid;
  /** How often an open stream re-checks its key between events (default 1 s); it re-checks before each too. */
  recheckMs?: number;
}

const ORDER_EVENTS = ['order.created', 'order.updated', 'order.canceled'] as const;

/** Creates the order watch. */
export function createOrderWatch({ events, getOrder, maxPerKey, stillValid, recheckMs = 1000 }: OrderWatchOptions) {
  const open = new Map<string, number>();
  return {
    /**
     * The events of order `id` (every order the caller may see when undefined), committed from now until
     * `signal` aborts. Refused before anything is read: no caller, another user's order, or the key's
     * bound reached (`SUBSCRIPTION_LIMIT`). The slot is given back when the iteration ends. Authorization
     * holds while it delivers (`whileKeyHolds`): once the key expired, was revoked or was rotated out the
     * iteration throws UNAUTHENTICATED.
     */
    async follow(
      caller: Caller | null,
      id: number | undefined,
      signal: AbortSignal,
    ): Promise<AsyncIterable<StoredEvent>> {
      const who = requireCaller(caller);
      if (id !== undefined) await getOrder(who, id);
      // A key's rotations share its bound (they count by the chain's first key).
      const key = who.apiKeyId === null ? `user:${who.userId}` : `key:${who.keyChainId ?? who.apiKeyId}`;
      const held = open.get(key) ?? 0;
      if (held >= maxPerKey) {
        throw new DomainError(
          'SUBSCRIPTION_LIMIT',
          `This API key already holds ${maxPerKey} open subscriptions; complete one before opening another.`,
        );
      }
      open.set(key, held + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      };
      // Given back when the iteration ends, or when the signal aborts before it ever started.
      signal.addEventListener('abort', release, { once: true });
      const filter: EventFilter = {
        types: ORDER_EVENTS,
        ...(id === undefined ? {} : { subject: `order:${id}` }),
        ...(who.role === 'admin' ? {} : { ownerUserId: who.userId }),
      };
      const subscription = whileKeyHolds(who, stillValid, signal, (held) => events.subscribe(filter, held), recheckMs);
      return (async function* () {
        try {
          yield* subscription;
        } finally {
          release();
        }
      })();
    },
  };
}

/** Follows orders: see `createOrderWatch`. */
export type OrderWatch = ReturnType<typeof createOrderWatch>;
