import type { Store } from '../../src/core/ports/index.js';

/** Where a "dying" process stops, as seen from the database. */
export type DeathPoint =
  /** After reserving stock: the order is never written and nothing is given back. */
  | 'after-reserving'
  /** After writing the order: the idempotency claim is never completed. */
  | 'before-completing';

/**
 * The store as a process that dies at `point` sees it: the writes it would make from there on fail, while
 * everything before them lands for real. Another core over the plain store plays the process that
 * survives (the retry, the sweep).
 */
export function dyingStore(store: Store, point: DeathPoint): Store {
  if (point === 'before-completing') {
    return {
      ...store,
      idempotency: { ...store.idempotency, complete: () => Promise.reject(new Error('connection lost')) },
    };
  }
  const killed = () => Promise.reject(new Error('process killed'));
  return {
    ...store,
    orders: { ...store.orders, insert: killed },
    inventory: { ...store.inventory, release: killed },
    idempotency: { ...store.idempotency, abandon: killed },
  };
}
