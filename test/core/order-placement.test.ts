/**
 * What a placement does with each outcome of its last steps (src/core/orders/order-placement.ts): the
 * order's write refused, lost to a takeover or of unknown outcome, the claim's hold lost. Each case checks
 * the answer a client gets and where the reserved stock ends up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { Store } from '../../src/core/ports/index.js';
import { DomainError } from '../../src/core/shared/index.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct, refusalOf } from '../support/fixtures.js';
import { until } from '../support/until.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let alice: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  alice = await makeCustomer(core, admin, 'Alice');
});
afterAll(() => database?.close());

/** A core whose store answers the order's write with `insert` instead. */
async function coreWritingWith(insert: Store['orders']['insert']) {
  return testCore({ ...database.store, orders: { ...database.store.orders, insert } });
}

const reservedOf = async (sku: string) => (await core.inventory.stock(sku)).reserved;
const released = (sku: string) => until(async () => ((await reservedOf(sku)) === 0 ? true : undefined), 3_000);

describe('the order’s write', () => {
  it('lost to a retry that took the claim over: IDEMPOTENCY_KEY_IN_USE, and the stock goes back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const lost = await coreWritingWith(async () => 'claim-lost');
    const items = [{ productId: product.id, quantity: 2 }];
    expect(
      await refusalOf(lost.orders.place(alice, { items }, { idempotencyKey: `lost-${product.id}` })),
    ).toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
      retryAfterSeconds: 1,
    });
    expect(await released(product.sku)).toBe(true);
  });

  it('refused because the draft was placed meanwhile: DRAFT_ALREADY_ORDERED, and the stock goes back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const draft = (await core.drafts.create(alice, { items: [{ productId: product.id, quantity: 1 }] })).result;
    const raced = await coreWritingWith(async () => 'draft-already-ordered');
    expect(await refusalOf(raced.orders.place(alice, { draftId: draft.id }))).toMatchObject({
      code: 'DRAFT_ALREADY_ORDERED',
      detail: `Draft ${draft.id} was already placed.`,
    });
    expect(await released(product.sku)).toBe(true);
  });

  it('refused because the reservation was released meanwhile: UPSTREAM_TIMEOUT with Retry-After 1, and the stock goes back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const late = await coreWritingWith(async () => 'reservation-lost');
    expect(await refusalOf(late.orders.place(alice, { items: [{ productId: product.id, quantity: 1 }] }))).toEqual({
      code: 'UPSTREAM_TIMEOUT',
      detail:
        'The order could not be placed within its budget; no order was placed. Retry (Retry-After) with the same Idempotency-Key.',
      retryAfterSeconds: 1,
    });
    expect(await released(product.sku)).toBe(true);
  });

  it('refused by the database: its error, and the stock goes back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const refused = await coreWritingWith(async () => {
      throw new DomainError('USER_NOT_FOUND', 'the user went away meanwhile');
    });
    expect(
      await refusalOf(refused.orders.place(alice, { items: [{ productId: product.id, quantity: 3 }] })),
    ).toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(await released(product.sku)).toBe(true);
  });

  it('of unknown outcome (the database went away): the stock stays held, as the order may exist', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const unknown = await coreWritingWith(async () => {
      throw new DomainError('DATABASE_UNAVAILABLE', 'the connection was lost');
    });
    expect(
      await refusalOf(unknown.orders.place(alice, { items: [{ productId: product.id, quantity: 3 }] })),
    ).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    await new Promise((resolve) => setTimeout(resolve, 100)); // a release, had one been sent, lands by now
    expect(await reservedOf(product.sku)).toBe(3);
  });
});

describe('the claim’s hold on the stock', () => {
  it('lost to a takeover: the placement stops with IDEMPOTENCY_KEY_IN_USE and gives the stock back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const idempotency = database.store.idempotency;
    const takenOver = await testCore({
      ...database.store,
      idempotency: { ...idempotency, hold: async () => false },
    });
    const items = [{ productId: product.id, quantity: 1 }];
    const answer = await refusalOf(takenOver.orders.place(alice, { items }, { idempotencyKey: `hold-${product.id}` }));
    expect(answer).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(await released(product.sku)).toBe(true);
    expect(
      (await core.orders.list(alice, { withTotal: true })).items.some((o) => o.items[0]?.productId === product.id),
    ).toBe(false);
  });
});

describe('the inventory’s answer', () => {
  /** A core whose inventory reserves through the real service, then answers as `after` says. */
  async function coreReservingThen(after: (signal: AbortSignal | undefined) => Promise<void>, requestTimeoutMs = 2000) {
    const service = core.inventory;
    return testCore(database.store, {
      requestTimeoutMs,
      inventory: {
        async reserveOrder(request, options) {
          await service.reserveOrder(request.orderId, request.lines);
          await after(options.signal);
        },
        async release(request) {
          await service.release(request.orderId, request.sku).catch(() => undefined);
        },
      },
    });
  }

  it('arriving after the budget, a success: UPSTREAM_TIMEOUT, and what it reserved goes back', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    // This inventory ignores the call's signal and answers OK 400 ms in, far past a budget of 150 ms.
    const late = await coreReservingThen(() => new Promise((resolve) => setTimeout(resolve, 400)), 150);
    const answer = await refusalOf(late.orders.place(alice, { items: [{ productId: product.id, quantity: 2 }] }));
    expect(answer).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    // Released by the placement once the late success arrives, not left to the reservation's expiry.
    expect(await released(product.sku)).toBe(true);
  });

  it('an abort before the deadline is a time-out; any other failure is passed on as it is', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const items = [{ productId: product.id, quantity: 1 }];
    const aborted = await coreReservingThen(async () => {
      throw new DOMException('The operation was aborted.', 'AbortError');
    });
    expect(await refusalOf(aborted.orders.place(alice, { items }))).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(await released(product.sku)).toBe(true);
    const timedOut = await coreReservingThen(async () => {
      throw new DOMException('The operation timed out.', 'TimeoutError');
    });
    expect(await refusalOf(timedOut.orders.place(alice, { items }))).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    const broken = await coreReservingThen(async () => {
      throw new Error('inventory exploded');
    });
    await expect(broken.orders.place(alice, { items })).rejects.toThrow('inventory exploded');
    const unavailable = await coreReservingThen(async () => {
      throw new DomainError('INVENTORY_UNAVAILABLE', 'the inventory is away');
    });
    expect(await refusalOf(unavailable.orders.place(alice, { items }))).toMatchObject({
      code: 'INVENTORY_UNAVAILABLE',
    });
    expect(await released(product.sku)).toBe(true);
  });
});

describe('a retry of a placement whose first attempt wrote the order', () => {
  /** A core whose claims report `heldOrderId` as the order a dead first attempt wrote. */
  async function coreResuming(heldOrderId: number) {
    const idempotency = database.store.idempotency;
    return testCore({
      ...database.store,
      idempotency: {
        ...idempotency,
        claim: async (...args: Parameters<typeof idempotency.claim>) => {
          const claim = await idempotency.claim(...args);
          return claim.kind === 'claimed' ? { ...claim, heldOrderId } : claim;
        },
      },
    });
  }

  it('answers with that order, placing none and reserving nothing again', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const items = [{ productId: product.id, quantity: 2 }];
    const first = (await core.orders.place(alice, { items })).result;
    const resumed = await coreResuming(first.id);
    const { result } = await resumed.orders.place(alice, { items }, { idempotencyKey: `resume-${first.id}` });
    expect(result).toEqual(first);
    expect(await reservedOf(product.sku)).toBe(2);
  });

  it('places anew when that order is gone or is another user’s', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const items = [{ productId: product.id, quantity: 1 }];
    const bob = await makeCustomer(core, admin, `Bob ${product.id}`);
    const theirs = (await core.orders.place(bob, { items })).result;
    for (const heldOrderId of [theirs.id, 999_999]) {
      const resumed = await coreResuming(heldOrderId);
      const { result } = await resumed.orders.place(alice, { items }, { idempotencyKey: `anew-${heldOrderId}` });
      expect(result).toMatchObject({ userId: alice.userId });
      expect(result.id).not.toBe(theirs.id);
    }
    expect(await reservedOf(product.sku)).toBe(3);
  });
});

describe('the claim of a keyed placement', () => {
  it('is completed by the order’s own write, not by a second one', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const idempotency = database.store.idempotency;
    let completions = 0;
    const counting = await testCore({
      ...database.store,
      idempotency: {
        ...idempotency,
        complete: async (...args: Parameters<typeof idempotency.complete>) => {
          completions++;
          return idempotency.complete(...args);
        },
      },
    });
    const items = [{ productId: product.id, quantity: 1 }];
    const first = await counting.orders.place(alice, { items }, { idempotencyKey: `one-write-${product.id}` });
    expect(completions).toBe(0);
    // The write completed the claim: the retry is a replay of the same order.
    const again = await counting.orders.place(alice, { items }, { idempotencyKey: `one-write-${product.id}` });
    expect(again).toEqual({ result: first.result, replayed: true });
  });

  it('says what is missing or not allowed in who the order is for and what it holds', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const items = [{ productId: product.id, quantity: 1 }];
    expect(await refusalOf(core.orders.place(alice, {}))).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: 'items or draftId must be given, exactly one of the two.',
    });
    expect(await refusalOf(core.orders.place(admin, { items }))).toMatchObject({
      detail: 'userId is required when an admin places an order.',
    });
    expect(await refusalOf(core.orders.place(alice, { items, userId: alice.userId + 1 }))).toMatchObject({
      code: 'FORBIDDEN',
      detail: 'Customers place orders only for themselves.',
    });
  });
});
