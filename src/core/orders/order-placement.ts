import {
  type ClaimHold,
  claimTakenOver,
  type IdempotencyService,
  type IdempotentCreate,
  placementBudget,
} from '../idempotency/index.js';
import type { CallOptions, InventoryPort, Store } from '../ports/index.js';
import type { Address, Order } from '../shared/index.js';
import { actingFor, type Caller, DomainError, invalidInput } from '../shared/index.js';
import { draftLines, newOrder, type PricedLine, priceLines, shippingAddressOf } from './order-lines.js';

/** The ports order placement (and the order service around it) uses. */
export type OrderPlacementStore = Pick<Store, 'orders' | 'drafts' | 'products' | 'users'>;

/** A line to order. */
export interface OrderLine {
  productId: number;
  quantity: number;
}

/** What placing an order takes (exactly one of `items` or `draftId`). */
export interface PlaceOrderInput {
  items?: OrderLine[];
  draftId?: number;
  userId?: number;
  shippingAddress?: Address;
  note?: string;
  couponCode?: string;
}

/** What placing orders needs. */
export interface OrderPlacementDeps {
  store: OrderPlacementStore;
  inventory: InventoryPort;
  idempotency: IdempotencyService;
  /** Budget of an order placement when the caller gives no deadline of its own. */
  requestTimeoutMs: number;
  /** The most units of one order item, once lines of one product are merged. */
  maxItemQuantity: number;
}

/** Sequential round trips of reserving an order's stock in the store (docs/benchmarks.md). */
const RESERVATION_TRIPS = 4;

/** The place-order use case: idempotent per key (`orders.place`), the only way the core places an order. */
export type PlaceOrder = IdempotentCreate<PlaceOrderInput, Order>;

/**
 * Placing an order (docs/decisions.md §9): reserve every line through the inventory port, then write the order
 * in one transaction; on any failure or time-out release what was reserved. No database transaction is
 * held across the reservation calls. The idempotency claim is the use case's own: the stock it holds is
 * tied to the claim, so a placement can only run under one.
 */
export function createPlaceOrder({
  store,
  inventory,
  idempotency,
  requestTimeoutMs,
  maxItemQuantity,
}: OrderPlacementDeps): PlaceOrder {
  const linesFor = (caller: Caller, input: PlaceOrderInput, userId: number): Promise<PricedLine[]> =>
    input.draftId !== undefined
      ? draftLines(store, caller, input.draftId, userId)
      : priceLines(store, input.items ?? [], maxItemQuantity);
  const compensate = (orderId: number) => release(inventory, orderId);

  /** Reserves every line in one call, or rethrows having released what may have been reserved. */
  async function reserveAll(orderId: number, lines: PricedLine[], deadline: number, signal?: AbortSignal) {
    try {
      const request = { orderId: String(orderId), lines: lines.map(({ sku, quantity }) => ({ sku, quantity })) };
      await inventory.reserveOrder(request, callOptions(deadline, signal));
    } catch (error) {
      await compensate(orderId);
      throw asTimeout(error, deadline);
    }
  }

  /**
   * Places an order under its claim, all or nothing, in about seven round trips to the database whatever
   * the number of lines (docs/benchmarks.md): the claim; the user, the prices and the ids side by side;
   * the stock of every line in one reservation (its four) beside the claim's hold; the order in one
   * statement that also completes the claim.
   */
  async function place(caller: Caller, input: PlaceOrderInput, claim: ClaimHold, signal?: AbortSignal) {
    const deadline = claim.startedAt + requestTimeoutMs;
    const budget = placementBudget(deadline, placementTimeout);
    const { draftId } = input;
    if ((input.items === undefined) === (input.draftId === undefined)) {
      throw invalidInput('items', 'or draftId must be given, exactly one of the two');
    }
    const userId = actingFor(caller, input.userId, { admin: 'places an order', customer: 'place orders' });
    // A retry whose first attempt wrote the order and then died answers with that order, exactly once.
    if (claim.heldOrderId !== undefined) {
      const order = await budget.step(store.orders.get(claim.heldOrderId));
      if (order && order.userId === userId) return order;
    }
    const [shippingAddress, lines, allocated] = await budget.step(
      inOrder([
        shippingAddressOf(store, userId, input.shippingAddress),
        linesFor(caller, input, userId),
        input.items ? store.orders.allocate(input.items.length) : undefined,
      ] as const),
    );
    const allocation = allocated ?? (await budget.step(store.orders.allocate(lines.length)));
    const orderId = allocation.id;
    // The claim's hold ties the stock about to be held to it: if this process dies before the order is
    // written, a takeover or the claim's expiry releases it (and, should the hold not land, the
    // reservation's own expiry). Both travel at once; past the budget, what they held is given back later.
    const [held, reserved] = await budget.step(
      Promise.allSettled([claim.hold(orderId), reserveAll(orderId, lines, deadline, signal)]),
      RESERVATION_TRIPS,
      // A reservation that failed late gave its stock back itself (reserveAll); one that succeeded late has
      // it given back here.
      (late) => 'value' in late && late.value[1].status === 'fulfilled' && void compensate(orderId),
    );
    if (reserved.status === 'rejected') throw reserved.reason;
    if (held.status === 'rejected') {
      await compensate(orderId);
      throw held.reason;
    }
    // The order's write is awaited whatever it takes (its outcome must be known): it is not begun when it
    // would likely end past the budget, where the caller has given up (and a retry may take the claim over).
    if (!budget.fitsOneMoreTrip()) {
      void compensate(orderId);
      throw placementTimeout();
    }
    return writeOrder(store, compensate, newOrder(allocation, userId, lines, shippingAddress, input), draftId, claim);
  }

  return idempotency.useCase('orders.place', place, { ms: requestTimeoutMs, timeout: placementTimeout });
}

/** Writes the order, completing its claim in the same statement; gives the stock back if refused. */
async function writeOrder(
  store: OrderPlacementStore,
  compensate: (orderId: number) => Promise<void>,
  order: Order,
  draftId: number | undefined,
  claim: ClaimHold,
): Promise<Order> {
  const completes = claim.completion && { ...claim.completion, result: order };
  let outcome: Awaited<ReturnType<typeof store.orders.insert>>;
  try {
    outcome = await store.orders.insert({ order, ...(draftId === undefined ? {} : { draftId }) }, completes);
  } catch (error) {
    // Refused by the database, nothing was written and the stock goes back. Any other failure (the
    // connection lost, the answer never came) leaves the outcome unknown: the order may exist and own
    // its reservations, so they are not touched; if it does not, their expiry gives the stock back.
    if (error instanceof DomainError && error.code !== 'DATABASE_UNAVAILABLE') await compensate(order.id);
    throw error;
  }
  if (outcome === 'placed') {
    if (completes) claim.completed();
    return order;
  }
  await compensate(order.id);
  if (outcome === 'draft-already-ordered') {
    throw new DomainError('DRAFT_ALREADY_ORDERED', `Draft ${draftId} was already placed.`);
  }
  throw outcome === 'claim-lost' ? claimTakenOver() : placementTimeout();
}

/**
 * Awaits every read at once (one round trip, not one each) and fails as reading them one after another
 * would: with the first failure in the order given, whichever failed first in time.
 */
async function inOrder<const T extends readonly unknown[]>(
  reads: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as never;
}

/** The answer when the budget ran out, or the stock was released before the order could be written. */
const placementTimeout = () =>
  new DomainError(
    'UPSTREAM_TIMEOUT',
    'The order could not be placed within its budget; no order was placed. Retry (Retry-After) with the same Idempotency-Key.',
    undefined,
    undefined,
    1,
  );

/** Best-effort release with a short budget of its own; what it misses expires (RESERVATION_TTL_MS). */
async function release(inventory: InventoryPort, orderId: number): Promise<void> {
  await inventory
    .release({ orderId: String(orderId) }, { timeoutMs: 1000, signal: AbortSignal.timeout(1000) })
    .catch(() => undefined);
}

function callOptions(deadline: number, signal?: AbortSignal): CallOptions {
  const timeoutMs = Math.max(0, deadline - Date.now());
  const timeout = AbortSignal.timeout(Math.max(1, timeoutMs));
  return { timeoutMs, signal: signal ? AbortSignal.any([signal, timeout]) : timeout };
}

function asTimeout(error: unknown, deadline: number): unknown {
  if (error instanceof DomainError) return error;
  if (
    Date.now() >= deadline ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
  ) {
    return placementTimeout();
  }
  return error;
}
