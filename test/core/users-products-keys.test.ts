import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/core/bootstrap.js';
import type { Caller } from '../../src/core/index.js';
import { createApiKeyService } from '../../src/core/keys/api-keys.js';
import { minor } from '../../src/core/shared/money.js';
import { scopesOfRole } from '../../src/core/shared/scope-catalog.js';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { codeOf, makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
});
afterAll(() => database?.close());

const code = codeOf;

describe('users', () => {
  it('are created and listed by admins only', async () => {
    const customer = await makeCustomer(core, admin);
    expect(await code(core.users.list(customer))).toBe('FORBIDDEN');
    expect(await code(core.users.create(customer, { name: 'X', email: 'x@example.com' }))).toBe('FORBIDDEN');
    const page = await core.users.list(admin, { sort: 'name', withTotal: true });
    expect(page.totalCount).toBeGreaterThanOrEqual(2);
    const names = page.items.map((user) => user.name);
    expect(names).toEqual([...names].sort());
  });

  it('refuse a taken e-mail address, in any letter case', async () => {
    await core.users.create(admin, { name: 'Dup', email: 'dup@example.com' });
    expect(await code(core.users.create(admin, { name: 'Dup2', email: 'DUP@example.com' }))).toBe('EMAIL_TAKEN');
  });

  it('are visible and changeable only by themselves (others are not found)', async () => {
    const alice = await makeCustomer(core, admin, 'Alice');
    const bob = await makeCustomer(core, admin, 'Bob');
    expect(await code(core.users.get(bob, alice.userId))).toBe('USER_NOT_FOUND');
    const changed = await core.users.update(alice, alice.userId, { nickname: 'ali' });
    expect(changed).toMatchObject({ nickname: 'ali', version: 2 });
  });

  it('replace clears optional fields and checks versions', async () => {
    const alice = await makeCustomer(core, admin, 'Alice');
    const before = await core.users.update(alice, alice.userId, { phone: '+1 555 0100', nickname: 'al' });
    const replaced = await core.users.replace(alice, alice.userId, {
      name: 'Alice B',
      email: `ab-${alice.userId}@example.com`,
    });
    expect(replaced).toMatchObject({ phone: null, nickname: null, address: null, marketingAgreed: false });
    expect(await code(core.users.update(alice, alice.userId, { name: 'Z' }, { ifMatchVersion: before.version }))).toBe(
      'PRECONDITION_FAILED',
    );
  });

  it('with orders cannot be deleted; without, they go with their keys', async () => {
    const buyer = await makeCustomer(core, admin);
    const product = await makeProduct(core, admin);
    await core.orders.place(buyer, { items: [{ productId: product.id, quantity: 1 }] });
    expect(await code(core.users.remove(admin, buyer.userId))).toBe('USER_HAS_ORDERS');

    const leaver = await makeCustomer(core, admin);
    const { secret } = await core.apiKeys.issue(admin, { userId: leaver.userId, role: 'customer' });
    await core.users.remove(leaver, leaver.userId);
    expect(await code(core.users.get(admin, leaver.userId))).toBe('USER_NOT_FOUND');
    expect(await code(createApiKeyService(database.store).authenticate(secret))).toBe('UNAUTHENTICATED');
  });
});

describe('products and ratings', () => {
  it('are created by admins with stock; a taken SKU is a conflict', async () => {
    const customer = await makeCustomer(core, admin);
    expect(await code(core.products.create(customer, { name: 'X', sku: 'X-1', price: minor(1) }))).toBe('FORBIDDEN');
    const product = (await core.products.create(admin, { name: 'Mug', sku: 'MUG-1', price: minor(990), stock: 7 }))
      .result;
    expect(product).toMatchObject({ rating: null, ratingCount: 0, price: 990 });
    expect(await core.inventory.stock('MUG-1')).toEqual({ sku: 'MUG-1', onHand: 7, reserved: 0 });
    expect(await code(core.products.create(admin, { name: 'Mug 2', sku: 'MUG-1', price: minor(1) }))).toBe('SKU_TAKEN');
  });

  it('are rated once per user: a second rating replaces the first', async () => {
    const product = await makeProduct(core, admin);
    const alice = await makeCustomer(core, admin);
    const bob = await makeCustomer(core, admin);
    expect((await core.products.rate(alice, product.id, { score: 5 })).created).toBe(true);
    expect((await core.products.rate(alice, product.id, { score: 2, comment: 'meh' })).created).toBe(false);
    await core.products.rate(bob, product.id, { score: 5 });
    expect(await core.products.rating(product.id)).toEqual({ productId: product.id, average: 3.5, count: 2 });
    expect((await core.products.get(product.id)).rating).toBe(3.5);
    expect(await code(core.products.rate(alice, product.id, { score: 6 }))).toBe('VALIDATION_FAILED');
    expect(await code(core.products.rate(alice, 987_654, { score: 3 }))).toBe('PRODUCT_NOT_FOUND');
  });

  it('page by name with cursors', async () => {
    const all = [];
    let cursor: string | undefined;
    do {
      const page = await core.products.list({ sort: 'name', size: 2, ...(cursor ? { cursor } : {}) });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    const keys = all.map((p) => `${p.name}\u0000${String(p.id).padStart(10, '0')}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
  });
});

describe('API keys', () => {
  it('authenticate to their user and role, record lastLoginAt, and stop working when revoked', async () => {
    const customer = await makeCustomer(core, admin);
    const { apiKey, secret } = await core.apiKeys.issue(admin, { userId: customer.userId, role: 'customer' });
    expect(secret).toMatch(/^oak_[A-Za-z0-9_-]{43}$/);
    const keys = createApiKeyService(database.store);
    expect(await keys.authenticate(secret)).toEqual({
      userId: customer.userId,
      role: 'customer',
      apiKeyId: apiKey.id,
      scopes: scopesOfRole('customer'),
    });
    expect((await core.users.get(admin, customer.userId)).lastLoginAt).toBeInstanceOf(Date);
    expect((await core.users.get(admin, customer.userId)).version).toBe(1);
    await core.apiKeys.revoke(admin, apiKey.id);
    expect(await code(createApiKeyService(database.store).authenticate(secret))).toBe('UNAUTHENTICATED');
    expect(await code(keys.authenticate('oak_wrong'))).toBe('UNAUTHENTICATED');
  });

  it('stop working on an instance that had verified them within 5 s of the revocation (the documented bound)', async () => {
    const customer = await makeCustomer(core, admin);
    const { apiKey, secret } = await core.apiKeys.issue(admin, { userId: customer.userId, role: 'customer' });
    let now = 1_000_000;
    const instance = createApiKeyService(database.store, { clock: { now: () => now } });
    expect(await instance.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    // Revoked through another instance: this one may still accept the key it verified, but not past 5 s.
    await core.apiKeys.revoke(admin, apiKey.id);
    now += 5_001;
    // lru-cache reuses its last reading of the clock for 1 ms of real time.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await code(instance.authenticate(secret))).toBe('UNAUTHENTICATED');
  });

  it('are issued and revoked by admins only', async () => {
    const customer = await makeCustomer(core, admin);
    expect(await code(core.apiKeys.issue(customer, { userId: customer.userId, role: 'admin' }))).toBe('FORBIDDEN');
    expect(await code(core.apiKeys.revoke(customer, 1))).toBe('FORBIDDEN');
    expect(await code(core.apiKeys.issue(admin, { userId: 999_999, role: 'customer' }))).toBe('USER_NOT_FOUND');
    expect(await code(core.apiKeys.revoke(admin, 999_999))).toBe('API_KEY_NOT_FOUND');
  });
});

describe('bootstrap', () => {
  it('seeds a fresh database once, with orders in every state and working printed keys', async () => {
    const fresh = await openTestDatabase();
    try {
      const freshCore = await testCore(fresh.store);
      const first = await bootstrap(freshCore, fresh.store, { seed: (admin) => seedDemo(freshCore, admin) });
      expect(first).toMatchObject({
        seeded: true,
        adminKey: expect.stringMatching(/^oak_/),
        demoCustomerKey: expect.any(String),
      });
      const adminCaller = await freshCore.apiKeys.authenticate(first.adminKey as string);
      expect(adminCaller.role).toBe('admin');
      const customerCaller = await freshCore.apiKeys.authenticate(first.demoCustomerKey as string);
      expect(customerCaller.role).toBe('customer');
      const orders = await freshCore.orders.list(adminCaller, { size: 100 });
      expect(new Set(orders.items.map((order) => order.status))).toEqual(
        new Set(['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELED']),
      );
      expect(await bootstrap(freshCore, fresh.store, { seed: (admin) => seedDemo(freshCore, admin) })).toEqual({
        seeded: false,
      });
    } finally {
      await fresh.close();
    }
  });

  it('lets instances starting together on an empty database agree on one administrator', async () => {
    const fresh = await openTestDatabase();
    try {
      const freshCore = await testCore(fresh.store);
      const adminApiKey = 'bootstrap-secret-0123456789';
      const starts = await Promise.all([1, 2, 3].map(() => bootstrap(freshCore, fresh.store, { adminApiKey })));
      expect(starts).toEqual([1, 2, 3].map(() => ({ seeded: false })));
      expect(await fresh.store.users.count()).toBe(1);
      expect((await freshCore.apiKeys.authenticate(adminApiKey)).role).toBe('admin');
    } finally {
      await fresh.close();
    }
  });

  it('makes ADMIN_API_KEY the key of the administrator user', async () => {
    const fresh = await openTestDatabase();
    try {
      const freshCore = await testCore(fresh.store);
      const adminApiKey = 'bootstrap-secret-0123456789';
      expect(await bootstrap(freshCore, fresh.store, { adminApiKey })).toEqual({ seeded: false });
      const caller = await freshCore.apiKeys.authenticate(adminApiKey);
      expect(caller.role).toBe('admin');
      expect((await freshCore.users.get(caller, caller.userId)).name).toBe('Administrator');
    } finally {
      await fresh.close();
    }
  });
});
