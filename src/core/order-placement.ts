import { actingFor, type Caller, canSee } from './caller.js';
import { DomainError, invalidInput } from './errors.js';
import type { ClaimHold, IdempotencyService, IdempotentCreate } from './idempotency.js';
import type { Address, Order } from './model.js';
import { sumMinor, timesMinor } from './money.js';
import type { CallOptions, InventoryPort, NewOrder, Store } from './ports/index.js';

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
  const linesFor = (caller: Caller, input: PlaceOrderInput, userId: number): Promise<NewOrder['items']> =>
    input.draftId !== undefined
      ? draftLines(store, caller, input.draftId, userId)
      : priceLines(store, input.items ?? [], maxItemQuantity);
  const compensate = (orderId: number) => release(inventory, orderId);

  /** Reserves every line, or releases what was reserved and rethrows (no transaction spans the calls). */
  async function reserveAll(orderId: number, lines: NewOrder['items'], deadline: number, signal?: AbortSignal) {
    try {
      for (const line of lines) {
        const options = callOptions(deadline, signal);
        await inventory.reserve({ orderId: String(orderId), sku: line.sku, quantity: line.quantity }, options);
      }
    } catch (error) {
      await compensate(orderId);
      throw asTimeout(error, deadline);
    }
  }

  /** Places an order under its claim: reserve every line, then write the order; all or nothing. */
  async function place(caller: Caller, input: PlaceOrderInput, claim: ClaimHold, signal?: AbortSignal) {
    const deadline = Date.now() + requestTimeoutMs;
    if ((input.items === undefined) === (input.draftId === undefined)) {
      throw invalidInput('items', 'or draftId must be given, exactly one of the two');
    }
    const userId = actingFor(caller, input.userId, { admin: 'places an order', customer: 'place orders' });
    // A retry whose first attempt wrote the order and then died answers with that order, exactly once.
    if (claim.heldOrderId !== undefined) {
      const order = await store.orders.get(claim.heldOrderId);
      if (order && order.userId === userId) return order;
    }
    const shippingAddress = await shippingAddressOf(store, userId, input.shippingAddress);
    const items = await linesFor(caller, input, userId);

    const orderId = await store.orders.allocateId();
    // Tie the stock about to be held to the idempotency claim: if this process dies before the order is
    // written, the claim's expiry releases it (and a retry with the key may run).
    await claim.hold(orderId);
    await reserveAll(orderId, items, deadline, signal);
    try {
      // Past the budget the caller has given up (and a retry may take the claim over): write nothing.
      if (Date.now() >= deadline) {
        throw new DomainError('UPSTREAM_TIMEOUT', 'The order could not be placed in time; no order was placed.');
      }
      const written = await store.orders.insert({
        id: orderId,
        userId,
        items,
        amount: sumMinor(items.map((line) => line.amount)),
        shippingAddress,
        note: input.note ?? null,
        couponCode: input.couponCode ?? null,
        ...(input.draftId === undefined ? {} : { draftId: input.draftId }),
      });
      if (written === 'draft-already-ordered') {
        throw new DomainError('DRAFT_ALREADY_ORDERED', `Draft ${input.draftId} was already placed.`);
      }
      return written;
    } catch (error) {
      // With the database lost mid-write the order may exist after all: its reservations are then its
      // own (no expiry); if it does not, the claim's lease or the reservation expiry gives them back.
      if (!(error instanceof DomainError && error.code === 'DATABASE_UNAVAILABLE')) await compensate(orderId);
      throw error;
    }
  }

  return idempotency.useCase('orders.place', place);
}

/** The lines of a draft of the user, not yet placed. */
async function draftLines(
  store: OrderPlacementStore,
  caller: Caller,
  draftId: number,
  userId: number,
): Promise<NewOrder['items']> {
  const draft = await store.drafts.get(draftId);
  if (!draft || !canSee(caller, draft.userId) || draft.userId !== userId) {
    throw new DomainError('DRAFT_NOT_FOUND', `There is no order draft ${draftId}.`);
  }
  if (draft.status === 'ORDERED') {
    throw new DomainError('DRAFT_ALREADY_ORDERED', `Draft ${draft.id} was already placed as order ${draft.orderId}.`);
  }
  return draft.items.map(({ productId, sku, quantity, unitPrice, amount }) => ({
    productId,
    sku,
    quantity,
    unitPrice,
    amount,
  }));
}

/** The address given, or the user's address on file. */
async function shippingAddressOf(store: OrderPlacementStore, userId: number, given: Address | undefined) {
  const user = await store.users.get(userId);
  if (!user) throw new DomainError('USER_NOT_FOUND', `There is no user ${userId}.`);
  const shippingAddress = given ?? user.address;
  if (!shippingAddress) throw invalidInput('shippingAddress', 'is required: the user has no address on file');
  return shippingAddress;
}

/** Best-effort release with a short budget of its own; what it misses expires (RESERVATION_TTL_MS). */
async function release(inventory: InventoryPort, orderId: number): Promise<void> {
  await inventory
    .release({ orderId: String(orderId) }, { timeoutMs: 1000, signal: AbortSignal.timeout(1000) })
    .catch(() => undefined);
}

/**
 * Prices lines at today's prices. Each line was checked as sent (its contract's bounds); lines of one
 * product are then merged, and a merged line must still fit an order item (`maxItemQuantity`).
 */
export async function priceLines(
  store: Pick<Store, 'products'>,
  lines: readonly { productId: number; quantity: number }[],
  maxItemQuantity: number,
) {
  if (lines.length === 0) throw invalidInput('/items', 'must hold at least one line');
  const merged = new Map<number, number>();
  for (const line of lines) merged.set(line.productId, (merged.get(line.productId) ?? 0) + line.quantity);
  for (const [productId, quantity] of merged) {
    if (quantity > maxItemQuantity) {
      throw invalidInput(
        '/items',
        `must hold at most ${maxItemQuantity} units of one product (product ${productId}: ${quantity})`,
      );
    }
  }
  const products = new Map((await store.products.getMany([...merged.keys()])).map((product) => [product.id, product]));
  return [...merged].map(([productId, quantity]) => {
    const product = products.get(productId);
    if (!product) throw new DomainError('PRODUCT_NOT_FOUND', `There is no product ${productId}.`);
    return {
      productId,
      sku: product.sku,
      quantity,
      unitPrice: product.price,
      amount: timesMinor(product.price, quantity),
    };
  });
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
    return new DomainError('UPSTREAM_TIMEOUT', 'Stock could not be reserved in time; no order was placed.');
  }
  return error;
}
