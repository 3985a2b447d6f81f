import type { Store } from '../../src/core/ports/index.js';
import { DomainError } from '../../src/core/shared/errors.js';

/** Where a "dying" process stops, as seen from the database. */
export type DeathPoint =
  /** After reserving stock: the order is never written and nothing is given back. */
  | 'after-reserving'
  /**
   * The last write commits (the order with its claim completed, or another create before its claim is
   * completed) and its answer never arrives.
   */
  | 'after-committing';

/**
 * The store as a process that dies at `point` sees it: the writes it would make from there on fail, while
 * everything before them lands for real. Another core over the plain store plays the process that
 * survives (the retry, the sweep).
 */
export function dyingStore(store: Store, point: DeathPoint): Store {
  if (point === 'after-committing') {
    return {
      ...store,
      orders: { ...store.orders, insert: landsUnanswered(store.orders.insert, () => new Error('connection lost')) },
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

/** A write that lands, whose answer is lost: it fails with `lost()` after committing. */
const landsUnanswered =
  <A extends unknown[], R>(write: (...args: A) => Promise<R>, lost: () => Error) =>
  async (...args: A): Promise<never> => {
    await write(...args);
    throw lost();
  };

/** A database outage that the test ends: the store fails as a lost database does until `end()`. */
export interface Outage {
  store: Store;
  end(): void;
}

/**
 * The store of a process whose database fails under it from `point` on: those writes (and the compensation
 * and bookkeeping that follow) fail with DATABASE_UNAVAILABLE, as a lost connection does, until `end()`.
 */
export function outageStore(store: Store, point: DeathPoint): Outage {
  let down = true;
  const unavailable = () => new DomainError('DATABASE_UNAVAILABLE', 'The database cannot be reached right now.');
  const whileDown =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      down ? Promise.reject(unavailable()) : write(...args);
  const idempotency = {
    ...store.idempotency,
    complete: whileDown(store.idempotency.complete),
    end: whileDown(store.idempotency.end),
    abandon: whileDown(store.idempotency.abandon),
  };
  const failing: Store =
    point === 'after-committing'
      ? {
          ...store,
          idempotency,
          orders: { ...store.orders, insert: landsUnanswered(store.orders.insert, unavailable) },
        }
      : {
          ...store,
          idempotency,
          orders: { ...store.orders, insert: whileDown(store.orders.insert) },
          inventory: { ...store.inventory, release: whileDown(store.inventory.release) },
        };
  return {
    store: failing,
    end: () => {
      down = false;
    },
  };
}
