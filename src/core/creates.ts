/**
 * The create use cases, whole: each takes the caller, the input and the request's options, runs once per
 * Idempotency-Key under its one operation name, and answers whether it was a replay. Every interface calls
 * these, so a key used over REST replays over GraphQL (and back): the operation names and the input a key
 * is bound to are decided here and nowhere else.
 */
import type { Caller } from './caller.js';
import type { DraftService } from './drafts.js';
import type { IdempotencyService, Idempotent } from './idempotency.js';
import type { OrderService, PlaceOrderInput } from './orders.js';
import type { ProductInput, ProductService } from './products.js';
import type { UserInput, UserService } from './users.js';

/** What a request brings to a create besides its input. */
export interface CreateOptions {
  /** The client's Idempotency-Key (REST header, GraphQL argument); without one the create just runs. */
  idempotencyKey?: string | undefined;
  /** Aborts the work when the client goes away. */
  signal?: AbortSignal | undefined;
}

/** A cancellation as a create: the order and the optional reason. */
export interface CancelInput {
  orderId: number;
  reason?: string;
}

/** A draft as a create. */
export type DraftInput = Parameters<DraftService['create']>[1];

export interface CreatesDeps {
  idempotency: IdempotencyService;
  orders: OrderService;
  drafts: DraftService;
  users: UserService;
  products: ProductService;
}

/** The create use cases over the services. */
export type Creates = ReturnType<typeof createCreates>;

export function createCreates({ idempotency, orders, drafts, users, products }: CreatesDeps) {
  const once =
    <I, T>(operation: string, work: (caller: Caller, input: I, signal?: AbortSignal) => Promise<T>) =>
    (caller: Caller, input: I, { idempotencyKey, signal }: CreateOptions = {}): Promise<Idempotent<T>> =>
      idempotency.run(caller, idempotencyKey, operation, input, () => work(caller, input, signal));

  return {
    placeOrder: once('orders.place', (caller, input: PlaceOrderInput, signal) =>
      orders.place(caller, input, signal ? { signal } : {}),
    ),
    cancelOrder: once('orders.cancel', (caller, { orderId, reason }: CancelInput) =>
      orders.cancel(caller, orderId, reason),
    ),
    createDraft: once('drafts.create', (caller, input: DraftInput) => drafts.create(caller, input)),
    createUser: once('users.create', (caller, input: UserInput) => users.create(caller, input)),
    createProduct: once('products.create', (caller, input: ProductInput) => products.create(caller, input)),
  };
}
