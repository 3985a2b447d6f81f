import { createClient } from 'graphql-sse';

/** How long an event may take: several of the feeds' polls (2 s by default). */
const WAIT_MS = 10_000;
const ORDER_UPDATED = 'subscription ($id: ID) { orderUpdated(id: $id) { type changes order { id note } } }';

/** An open `orderUpdated` subscription of one order, over SSE with the `graphql-sse` client. */
export interface OrderSubscription {
  /**
   * The first `order.updated` result (the order's creation may still be on its way: it is passed over);
   * rejected when none came within 10 s.
   */
  updated: Promise<unknown>;
  close(): void;
}

/**
 * Subscribes with `key` to the events of order `orderId` on the server at `httpUrl`, and resolves once the
 * subscription is open on the server (after a short wait: the protocol does not acknowledge it).
 */
export async function subscribeToOrder(httpUrl: string, key: string, orderId: number): Promise<OrderSubscription> {
  const client = createClient({
    url: `${httpUrl}/graphql`,
    headers: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  const updated = new Promise<unknown>((resolve, reject) => {
    setTimeout(() => reject(new Error(`no order.updated within ${WAIT_MS} ms`)), WAIT_MS).unref();
    client.subscribe(
      { query: ORDER_UPDATED, variables: { id: String(orderId) } },
      {
        next: (result) => {
          if ((result.data as { orderUpdated?: { type: string } })?.orderUpdated?.type === 'order.updated')
            resolve(result);
        },
        error: reject,
        complete: () => reject(new Error('completed without an event')),
      },
    );
  });
  updated.catch(() => undefined); // awaited by the test; not an unhandled rejection when the test ends first
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { updated, close: () => client.dispose() };
}

/** What the subscription yields for an order whose note was changed to `note`. */
export const noteChanged = (orderId: number, note: string) => ({
  data: { orderUpdated: { type: 'order.updated', changes: ['note'], order: { id: String(orderId), note } } },
});
