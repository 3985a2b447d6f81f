/**
 * The demo seed places its orders as a client would (src/demo/seed-demo.ts): under an Idempotency-Key, and
 * again with the same key when a placement runs out of its budget, so that a first start on a busy machine
 * does not fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core/index.js';
import { DomainError } from '../../src/core/shared/errors.js';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin } from '../support/fixtures.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

describe('the demo seed', () => {
  it('retries a placement out of its budget with the same Idempotency-Key, and places each order once', async () => {
    const core = await testCore(database.store);
    const admin = await makeAdmin(database.store);
    const keys: Array<string | undefined> = [];
    let refusals = 1;
    const busy: Core = {
      ...core,
      orders: {
        ...core.orders,
        place: async (caller, input, options) => {
          keys.push(options?.idempotencyKey);
          if (refusals-- > 0) throw new DomainError('UPSTREAM_TIMEOUT', 'out of budget', undefined, undefined, 0);
          return core.orders.place(caller, input, options);
        },
      },
    };
    await seedDemo(busy, admin);
    expect(keys[0]).toBe('demo-seed-order-1');
    expect(keys[1]).toBe('demo-seed-order-1');
    expect(new Set(keys).size).toBe(keys.length - 1);
    const { totalCount } = await core.orders.list(admin, { withTotal: true });
    expect(totalCount).toBe(keys.length - 1);
  });
});
