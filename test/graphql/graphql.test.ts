import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core/index.js';
import type { Database } from '../../src/store/database.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';
import { graphqlEndpoint } from '../support/graphql.js';

let database: TestDatabase;
let statements = 0;
let delayUsersMs = 0;
let core: TestCore;
let adminKey: string;
let customerKey: string;
let run: Awaited<ReturnType<typeof graphqlEndpoint>>;

/** The same database, counting the statements the GraphQL layer causes (and able to slow one kind down). */
function counting(db: Database): Database {
  return {
    ...db,
    kind: db.kind,
    async query(sql, params) {
      statements++;
      if (delayUsersMs && sql.includes('FROM users WHERE id = ANY'))
        await new Promise((r) => setTimeout(r, delayUsersMs));
      return db.query(sql, params);
    },
    transaction: (work) => db.transaction(work),
    exec: (script) => db.exec(script),
    close: () => db.close(),
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(createSqlStore(counting(database.db)));
  const admin = await makeAdmin(database.store);
  adminKey = (await core.apiKeys.issue(admin, { userId: admin.userId, role: 'admin' })).secret;
  const customers = [];
  for (let index = 0; index < 10; index++) customers.push(await makeCustomer(core, admin, `Customer ${index}`));
  customerKey = (await core.apiKeys.issue(admin, { userId: customers[0]?.userId as number, role: 'customer' })).secret;
  const products = [];
  for (let index = 0; index < 10; index++)
    products.push(await makeProduct(core, admin, 100 + index, 10_000, `Product ${index}`));
  for (let index = 0; index < 120; index++) {
    const order = (
      await core.orders.place(customers[index % 10] as never, {
        items: [{ productId: products[index % 10]?.id as number, quantity: 1 }],
      })
    ).result;
    if (index % 3 === 0) await core.orders.update(admin, order.id, { status: 'PAID' });
  }
  run = await graphqlEndpoint(core);
});
afterAll(() => database?.close());

async function countStatements(query: string) {
  await run('{ products(first: 1) { nodes { id } } }', { key: adminKey }); // warm the key cache
  statements = 0;
  const result = await run(query, { key: adminKey });
  expect(result.body.errors).toBeUndefined();
  return statements;
}

describe('batching', () => {
  it('issues a small constant number of statements for 100 orders with nested fields, as for 1', async () => {
    const shape = '{ user { name } product { name rating } shipment { status } }';
    const forHundred = await countStatements(`{ orders(first: 100) ${shape} }`);
    const forOne = await countStatements(`{ orders(first: 1) ${shape} }`);
    // list + items, then one batched statement each for users, products and shipments
    expect(forHundred).toBe(5);
    expect(forOne).toBe(forHundred);
  });

  it('reads order items only when a page selects them, each order getting its own', async () => {
    expect(await countStatements('{ orders(first: 100) { id amount status createdAt } }')).toBe(1);
    const { body } = await run('{ orders(first: 100) { id items { id sku quantity } } }', { key: adminKey });
    const orders: Array<{ id: string; items: unknown[] }> = body.data?.orders;
    expect(orders.length).toBeGreaterThan(1);
    for (const sample of [orders[0], orders.at(-1)]) {
      const alone = await run(`{ order(id: "${sample?.id}") { items { id sku quantity } } }`, { key: adminKey });
      expect(alone.body.data?.order.items.length).toBeGreaterThan(0);
      expect(sample?.items).toEqual(alone.body.data?.order.items);
    }
  });

  it('counts the total only when totalCount is selected', async () => {
    const without = await countStatements('{ ordersConnection(first: 5) { nodes { id } } }');
    const withTotal = await countStatements('{ ordersConnection(first: 5) { nodes { id } totalCount } }');
    expect(withTotal).toBe(without + 1);
  });
});

describe('queries', () => {
  it('answers the spec’s order query in the requested shape only', async () => {
    const { body } = await run('{ orders(first: 1) { id } }', { key: adminKey });
    const id = body.data?.orders[0].id;
    const result = await run(
      `{ order(id: "${id}") { id amount user { name } product { name imageUrl rating } shipment { status } } }`,
      { key: adminKey },
    );
    expect(result.status).toBe(200);
    expect(Object.keys(result.body.data?.order).sort()).toEqual(['amount', 'id', 'product', 'shipment', 'user']);
    expect(Object.keys(result.body.data?.order.product).sort()).toEqual(['imageUrl', 'name', 'rating']);
  });

  it('pages a connection with cursors and bounds first', async () => {
    const first = await run(
      '{ ordersConnection(first: 50, sort: "amount") { nodes { id amount } pageInfo { endCursor hasNextPage } } }',
      {
        key: adminKey,
      },
    );
    const page = first.body.data?.ordersConnection;
    expect(page.nodes).toHaveLength(50);
    const next = await run(
      `{ ordersConnection(first: 100, sort: "amount", after: "${page.pageInfo.endCursor}") { nodes { id } pageInfo { hasNextPage } } }`,
      { key: adminKey },
    );
    expect(next.body.data?.ordersConnection.nodes).toHaveLength(70);
    const many = await run('{ orders(first: 1000) { id } }', { key: adminKey });
    expect(many.body.data?.orders).toHaveLength(100);
    const zero = await run('{ orders(first: 0) { id } }', { key: adminKey });
    expect(zero.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const foreign = await run('{ ordersConnection(first: 5, after: "garbage") { nodes { id } } }', { key: adminKey });
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('INVALID_CURSOR');
  });

  it('filters as REST does, with case-insensitive states', async () => {
    const paid = await run('{ ordersConnection(first: 1, filter: { status: [PAID] }) { totalCount } }', {
      key: adminKey,
    });
    expect(paid.body.data?.ordersConnection.totalCount).toBe(40);
    const mine = await run('{ ordersConnection(first: 1) { totalCount } }', { key: customerKey });
    expect(mine.body.data?.ordersConnection.totalCount).toBe(12);
  });

  it('resolves product fields without a key and everything else to null with UNAUTHENTICATED', async () => {
    const result = await run('{ products(first: 2) { nodes { name } } me { id } }');
    expect(result.status).toBe(200);
    expect(result.body.data?.products.nodes).toHaveLength(2);
    expect(result.body.data?.me).toBeNull();
    expect(result.body.errors?.[0]).toMatchObject({ path: ['me'], extensions: { code: 'UNAUTHENTICATED' } });
  });
});

describe('mutations mirror the REST writes', () => {
  it('creates, changes and deletes users, products, ratings, drafts and orders through the core', async () => {
    const ok = async (query: string, variables: Record<string, unknown> = {}, key = adminKey) => {
      const result = await run(query, { variables, key });
      expect(result.body.errors, query).toBeUndefined();
      return result.body.data as Record<string, any>;
    };
    const { createUser: user } = await ok(
      'mutation($input: CreateUserInput!) { createUser(input: $input, idempotencyKey: "u-1") { id name } }',
      { input: { name: 'Ivy', email: 'ivy@example.com', address: { zipCode: '1', line1: 'Elm St' } } },
    );
    const again = await ok(
      'mutation($input: CreateUserInput!) { createUser(input: $input, idempotencyKey: "u-1") { id } }',
      { input: { name: 'Ivy', email: 'ivy@example.com', address: { zipCode: '1', line1: 'Elm St' } } },
    );
    expect(again.createUser.id).toBe(user.id);
    const { updateUser } = await ok(
      `mutation { updateUser(id: "${user.id}", input: { nickname: "ivy" }) { nickname } }`,
    );
    expect(updateUser.nickname).toBe('ivy');
    const { replaceUser } = await ok(
      `mutation { replaceUser(id: "${user.id}", input: { name: "Ivy B", email: "ivy@example.com" }) { nickname address { zipCode } } }`,
    );
    expect(replaceUser).toEqual({ nickname: null, address: null });
    await ok(`mutation { updateUser(id: "${user.id}", input: { address: { zipCode: "2", line1: "Oak St" } }) { id } }`);

    const { createProduct: product } = await ok(
      'mutation { createProduct(input: { name: "Tamper", sku: "TAMP-1", price: 12.5, stock: 3 }) { id price } }',
    );
    expect(product.price).toBe(12.5);
    const { rateProduct } = await ok(
      `mutation { rateProduct(productId: "${product.id}", score: 4) { score product { rating } } }`,
    );
    expect(rateProduct).toEqual({ score: 4, product: { rating: 4 } });

    const { createOrderDraft: draft } = await ok(
      `mutation { createOrderDraft(input: { userId: "${user.id}", items: [{ productId: "${product.id}", quantity: 2 }] }) { id amount status } }`,
    );
    expect(draft).toMatchObject({ amount: 25, status: 'OPEN' });
    const { createOrder: order } = await ok(
      `mutation { createOrder(input: { userId: "${user.id}", draftId: "${draft.id}" }) { id status amountDetail { supply vat total } } }`,
    );
    expect(order.amountDetail).toEqual({ supply: 22.73, vat: 2.27, total: 25 });
    const { orderDraft } = await ok(`{ orderDraft(id: "${draft.id}") { status order { id } } }`);
    expect(orderDraft).toEqual({ status: 'ORDERED', order: { id: order.id } });

    await ok(`mutation { updateOrder(id: "${order.id}", input: { status: PAID }) { id } }`);
    const { updateShipment } = await ok(
      `mutation { updateShipment(orderId: "${order.id}", input: { carrier: "UPS" }) { status carrier } }`,
    );
    expect(updateShipment).toEqual({ status: 'PREPARING', carrier: 'UPS' });
    const { replaceOrder } = await ok(
      `mutation { replaceOrder(id: "${order.id}", input: { status: PAID, shippingAddress: { zipCode: "3", line1: "Pine St" } }) { shippingAddress { line1 } note } }`,
    );
    expect(replaceOrder).toEqual({ shippingAddress: { line1: 'Pine St' }, note: null });
    const { cancelOrder } = await ok(
      `mutation { cancelOrder(id: "${order.id}", reason: "gift", idempotencyKey: "c-1") { reason refundAmount } }`,
    );
    expect(cancelOrder).toEqual({ reason: 'gift', refundAmount: 25 });
    const { order: canceled } = await ok(
      `{ order(id: "${order.id}") { status cancellation { reason } shipment { status } } }`,
    );
    expect(canceled).toEqual({
      status: 'CANCELED',
      cancellation: { reason: 'gift' },
      shipment: { status: 'PREPARING' },
    });
    expect(await ok(`mutation { deleteOrder(id: "${order.id}") }`)).toEqual({ deleteOrder: order.id });
    expect(await ok(`mutation { deleteUser(id: "${user.id}") }`)).toEqual({ deleteUser: user.id });

    const users = await ok('{ users(first: 2, sort: "name") { nodes { name } totalCount } }');
    expect(users.users.nodes).toHaveLength(2);
    const denied = await run('{ users(first: 2) { totalCount } }', { key: customerKey });
    expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('limits, refused before execution', () => {
  const refusal = async (query: string, endpoint = run) => {
    statements = 0;
    const result = await endpoint(query, { key: adminKey });
    expect(result.status).toBeLessThan(500);
    expect(result.body.data ?? null).toBeNull();
    expect(statements, 'no resolver ran').toBeLessThanOrEqual(1); // at most the (cached) key check
    return result.body.errors?.[0]?.extensions?.code;
  };

  it('lets the spec’s queries through at first: 100', async () => {
    const spec = await run(
      '{ orders(first: 100) { id user { name } product { name imageUrl rating } shipment { status } } }',
      {
        key: adminKey,
      },
    );
    expect(spec.body.errors).toBeUndefined();
  });

  it('refuses a document over the cost cap', async () => {
    const costly = `{ orders(first: 100) { id amount status note couponCode createdAt updatedAt
      items { id sku quantity unitPrice amount product { id name sku price rating ratingCount imageUrl } }
      user { id name email phone nickname createdAt address { zipCode line1 line2 } }
      shipment { id status carrier trackingNumber shippedAt deliveredAt }
      cancellation { id reason refundAmount createdAt } } }`;
    expect(await refusal(costly)).toBe('COST_LIMIT');
  });

  // The cost limit read only literals, and counted a `first` the server cuts to 100 at its face.
  it('refuses the same costly document when `first` arrives as a variable', async () => {
    const costly = `query($n: Int) { orders(first: $n) { id amount status note couponCode createdAt updatedAt
      items { id sku quantity unitPrice amount product { id name sku price rating ratingCount imageUrl } }
      user { id name email phone nickname createdAt address { zipCode line1 line2 } }
      shipment { id status carrier trackingNumber shippedAt deliveredAt }
      cancellation { id reason refundAmount createdAt } } }`;
    // The document validates once and is cached: its cost still follows its variables, both ways.
    expect((await run(costly, { key: adminKey, variables: { n: 2 } })).body.errors).toBeUndefined();
    statements = 0;
    const result = await run(costly, { key: adminKey, variables: { n: 100 } });
    expect(result.body.errors?.[0]?.extensions?.code).toBe('COST_LIMIT');
    expect(result.body.data ?? null).toBeNull();
    expect(statements, 'no resolver ran').toBeLessThanOrEqual(1);
    expect(result.status).toBe(400);
    expect((await run(costly, { key: adminKey, variables: { n: 2 } })).body.errors).toBeUndefined();
  });

  it.each([
    ['a literal', '{ orders(first: 2000) { id user { name } } }', undefined],
    ['a variable', 'query($n: Int) { orders(first: $n) { id user { name } } }', { n: 2000 }],
  ])('cuts `first` above 100 to 100 and charges what 100 costs, given as %s', async (_, query, variables) => {
    const result = await run(query, { key: adminKey, ...(variables ? { variables } : {}) });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data?.orders).toHaveLength(100);
    const hundred = await run('{ orders(first: 100) { id user { name } } }', { key: adminKey });
    expect(result.body.data?.orders).toEqual(hundred.body.data?.orders);
  });

  // A body is sized as REST's (1 MiB), and the variables are counted, used or not.
  it('refuses a body over 1 MiB with 413 and more than 100 variables with BAD_USER_INPUT', async () => {
    const big = await run('query($v: String) { products(first: 1) { totalCount } }', {
      variables: { v: 'x'.repeat(1_048_576) },
    });
    expect(big.status).toBe(413);
    expect(big.body.errors?.[0]?.extensions?.code).toBe('REQUEST_ENTITY_TOO_LARGE');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`v${index}`, index]));
    const counted = await run('{ products(first: 1) { totalCount } }', { variables: many });
    expect(counted.status).toBe(400);
    expect(counted.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`v${index}`, index]));
    expect((await run('{ products(first: 1) { totalCount } }', { variables: hundred })).body.errors).toBeUndefined();
  });

  it('refuses more than 15 aliases', async () => {
    const aliases = Array.from({ length: 16 }, (_, index) => `a${index}: me { id }`).join(' ');
    expect(await refusal(`{ ${aliases} }`)).toBe('ALIAS_LIMIT');
  });

  it('refuses more than 50 directives', async () => {
    expect(await refusal(`{ me { id ${'@include(if: true) '.repeat(51)} } }`)).toBe('DIRECTIVE_LIMIT');
  });

  it('refuses more than 3000 tokens', async () => {
    expect(await refusal(`{ me { ${'id '.repeat(3000)} } }`)).toBe('TOKEN_LIMIT');
  });

  it('refuses documents deeper than the configured depth', async () => {
    const shallow = await graphqlEndpoint(core, { maxDepth: 3 });
    expect(await refusal('{ orderDraft(id: 1) { order { items { product { id } } } } }', shallow)).toBe('DEPTH_LIMIT');
  });
});

describe('execution time-out', () => {
  it('answers 200 with the data resolved so far and a TIMEOUT error', async () => {
    const hasty = await graphqlEndpoint(core, { timeoutMs: 300 });
    delayUsersMs = 2_000;
    try {
      const started = Date.now();
      const result = await hasty('{ products(first: 2) { nodes { name } } orders(first: 2) { id user { name } } }', {
        key: adminKey,
      });
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(result.status).toBe(200);
      expect(result.body.data?.products.nodes).toHaveLength(2);
      expect(result.body.data?.orders[0]).toMatchObject({ user: null });
      expect(result.body.errors?.[0]?.extensions?.code).toBe('TIMEOUT');
    } finally {
      delayUsersMs = 0;
    }
  });
});

describe('errors', () => {
  it('masks unexpected failures as INTERNAL without internals', async () => {
    const broken = await graphqlEndpoint({
      ...core,
      products: {
        ...core.products,
        get: async () => {
          throw new Error('connection string postgres://secret@db');
        },
      },
    } as Core);
    const result = await broken('{ product(id: 1) { name } }');
    expect(result.status).toBe(200);
    expect(result.body.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL' } });
    expect(JSON.stringify(result.body)).not.toContain('secret');
  });

  it('refuses introspection when configured off', async () => {
    const closed = await graphqlEndpoint(core, { introspection: false });
    const result = await closed('{ __schema { types { name } } }');
    expect(result.body.errors?.[0]?.message).toMatch(/introspection/i);
    const open = await run('{ __schema { queryType { name } } }');
    expect(open.body.data?.__schema.queryType.name).toBe('Query');
  });
});
