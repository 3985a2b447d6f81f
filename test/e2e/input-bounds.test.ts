import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

// Issue 33 point 6: every input a client sends has a bound, stated in contracts/openapi.yaml (and in the
// GraphQL descriptions) and checked by the core, so a value one over the bound gets the same
// `VALIDATION_FAILED` over REST (400) and GraphQL, and a value at the bound is taken by both.
const ADMIN_KEY = 'input-bounds-admin-key-0123456789';
const json = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

let server: RunningServer;
let userId: number;
let productId: number;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  const user = await checkedFetch(server.httpUrl, '/v1/users', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Bounded', email: 'bounded@example.com', address: { zipCode: '1', line1: 'x' } }),
  });
  userId = (user.body as { id: number }).id;
  const product = await checkedFetch(server.httpUrl, '/v1/products', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Bean', sku: 'BOUND-1', price: 1, stock: 1_000_000 }),
  });
  productId = (product.body as { id: number }).id;
});
afterAll(async () => {
  await server?.close();
});

async function rest(method: string, path: string, body?: unknown) {
  return checkedFetch(server.httpUrl, path, {
    method,
    headers: json,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function graphql(query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { ...json, accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
  return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code), body };
}

const lines = (count: number) => Array.from({ length: count }, () => ({ productId, quantity: 1 }));
const CREATE_ORDER = 'mutation($input: CreateOrderInput!) { createOrder(input: $input) { id } }';
const CREATE_USER = 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }';
const SEARCH = 'query($filter: OrderFilter) { orders(filter: $filter) { id } }';
const CREATE_PRODUCT = 'mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }';
const RATE =
  'mutation($id: ID!, $comment: String) { rateProduct(productId: $id, score: 4, comment: $comment) { score } }';

let skus = 0;
const sku = () => `BOUND-P-${++skus}`;

let emails = 0;
const email = () => `bound-${++emails}@example.com`;

/** One bounded input: the REST request and the GraphQL request that send `value`, and the bound. */
interface Case {
  name: string;
  bound: number;
  value: (size: number) => unknown;
  rest: (value: any) => [string, string, unknown?];
  graphql: (value: any) => [string, Record<string, unknown>];
  /** Where REST names the violation. */
  pointer: string;
}

const cases: Case[] = [
  {
    name: 'an order note (500 characters)',
    bound: 500,
    value: (size) => 'n'.repeat(size),
    rest: (note) => ['POST', '/v1/orders', { userId, items: lines(1), note }],
    graphql: (note) => [CREATE_ORDER, { input: { userId: String(userId), items: lines(1), note } }],
    pointer: '/note',
  },
  {
    name: 'a user name (100 characters)',
    bound: 100,
    value: (size) => 'u'.repeat(size),
    rest: (name) => ['POST', '/v1/users', { name, email: email() }],
    graphql: (name) => [CREATE_USER, { input: { name, email: email() } }],
    pointer: '/name',
  },
  {
    name: "an order's items (100 lines)",
    bound: 100,
    value: (size) => lines(size),
    rest: (items) => ['POST', '/v1/orders', { userId, items }],
    graphql: (items) => [CREATE_ORDER, { input: { userId: String(userId), items } }],
    pointer: '/items',
  },
  {
    name: 'the search text q (200 characters)',
    bound: 200,
    value: (size) => 'q'.repeat(size),
    rest: (q) => ['POST', '/v1/orders/search', { q }],
    graphql: (q) => [SEARCH, { filter: { q } }],
    pointer: '/q',
  },
  {
    name: "a product's name (200 characters)",
    bound: 200,
    value: (size) => 'p'.repeat(size),
    rest: (name) => ['POST', '/v1/products', { name, sku: sku(), price: 1 }],
    graphql: (name) => [CREATE_PRODUCT, { input: { name, sku: sku(), price: 1 } }],
    pointer: '/name',
  },
  {
    name: "a rating's comment (1000 characters)",
    bound: 1000,
    value: (size) => 'c'.repeat(size),
    rest: (comment) => ['PUT', `/v1/products/${productId}/ratings/me`, { score: 4, comment }],
    graphql: (comment) => [RATE, { id: String(productId), comment }],
    pointer: '/comment',
  },
];

describe.each(cases)('$name', (bounded) => {
  it('one over the bound is 400 VALIDATION_FAILED over REST and VALIDATION_FAILED over GraphQL', async () => {
    const over = bounded.value(bounded.bound + 1);
    const [method, path, body] = bounded.rest(over);
    const answer = await rest(method, path, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'body', name: bounded.pointer }] });

    const [query, variables] = bounded.graphql(over);
    const viaGraphql = await graphql(query, variables);
    expect(viaGraphql.codes).toEqual(['VALIDATION_FAILED']);
  });

  it('at the bound is taken by both', async () => {
    const at = bounded.value(bounded.bound);
    const [method, path, body] = bounded.rest(at);
    const answer = await rest(method, path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);

    const [query, variables] = bounded.graphql(at);
    const viaGraphql = await graphql(query, variables);
    expect(viaGraphql.body.errors, JSON.stringify(viaGraphql.body)).toBeUndefined();
  });
});

it('the search text over its bound is the same 400 in the query string', async () => {
  const answer = await rest('GET', `/v1/orders?q=${'q'.repeat(201)}`);
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'query', name: 'q' }] });
});

it("a draft's lines and a cancellation's reason over their bounds are VALIDATION_FAILED on both", async () => {
  const draft = await rest('POST', '/v1/order-drafts', { userId, items: lines(101) });
  expect(draft.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'body', name: '/items' }] });
  const draftMutation = 'mutation($input: CreateOrderDraftInput!) { createOrderDraft(input: $input) { id } }';
  const viaGraphql = await graphql(draftMutation, { input: { userId: String(userId), items: lines(101) } });
  expect(viaGraphql.codes).toEqual(['VALIDATION_FAILED']);

  const order = await rest('POST', '/v1/orders', { userId, items: lines(1) });
  const orderId = (order.body as { id: number }).id;
  const reason = 'r'.repeat(501);
  const cancel = await rest('POST', `/v1/orders/${orderId}/cancellation`, { reason });
  expect(cancel.status).toBe(400);
  expect(cancel.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'body', name: '/reason' }] });
  const cancelMutation = 'mutation($id: ID!, $reason: String) { cancelOrder(id: $id, reason: $reason) { id } }';
  expect((await graphql(cancelMutation, { id: String(orderId), reason })).codes).toEqual(['VALIDATION_FAILED']);
});
