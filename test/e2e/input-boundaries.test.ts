import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { fc, test as property } from '@fast-check/vitest';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import type { RunningServer } from '../../src/main.js';
import { type BoundaryCase, casesOf, protoBoundaryCases } from '../support/boundary-cases.js';
import { checkedFetch } from '../support/contract.js';
import { grpcClient } from '../support/grpc-client.js';
import { startTestServer } from '../support/server.js';

// Every input rule the contracts state holds at its edge, alike over REST and GraphQL. The cases
// are generated from the contracts (test/support/boundary-cases.ts): at the bound and one past it, each
// format, list sizes, repeated values. A value the rules allow is taken by both and reads back the same;
// one they refuse is VALIDATION_FAILED with the same violations from both. Every REST answer is checked
// against contracts/openapi.yaml (checkedFetch).
const ADMIN_KEY = 'input-boundaries-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
const json = { ...auth, 'content-type': 'application/json' };

let server: RunningServer;
let userId: number;
let productId: number;
let counter = 0;
const unique = () => (++counter).toString(36);
/** A line of a ReserveOrder that the rules allow, its SKU different every time (each SKU may appear once). */
const line = () => ({ sku: `BOUNDS-${++counter}`, quantity: 1 });
const address = () => ({ zipCode: '1', line1: 'x' });

/** A header carries Latin-1 only; a key must differ from every key sent before (one store per caller). */
let keys = 0;
const headerText = (value: unknown) => {
  const length = typeof value === 'string' ? [...value].length : 0;
  if (typeof value !== 'string' || length === 0) return value;
  return String.fromCharCode(0x21 + (keys++ % 94)) + 'k'.repeat(length - 1);
};
/** The value a case sends over one protocol: its own (members such as a SKU must differ per request). */
const sendable = (boundary: BoundaryCase) => {
  const value = boundary.value(unique);
  return boundary.path[0] === 'idempotencyKey' ? headerText(value) : value;
};

type Args = Record<string, any>;
interface RestRequest {
  method: string;
  path: string;
  body?: unknown;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** One GraphQL field and the REST operation that takes the same input. */
interface Target {
  /** Arguments that make a valid request; the case's value replaces one member. */
  base: () => Promise<Args> | Args;
  /** The REST request for the same arguments. */
  rest: (args: Args) => RestRequest;
  /** The GraphQL document; its selection reads back what was written. */
  document: string;
}

const order = async (status?: string) => {
  const placed = await checkedFetch(server.httpUrl, '/v1/orders', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ userId, items: [{ productId, quantity: 1 }] }),
  });
  const id = (placed.body as { id: number }).id;
  if (status) await call({ method: 'PATCH', path: `/v1/orders/${id}`, body: { status } });
  return id;
};
const keyHeader = (args: Args): Record<string, string> =>
  args.idempotencyKey === undefined ? {} : { 'idempotency-key': String(args.idempotencyKey) };
const ORDER = 'id amount note couponCode status shippingAddress { zipCode line1 line2 } items { quantity }';
const USER = 'id name email phone nickname address { zipCode line1 line2 }';

const targets: Record<string, Target> = {
  'Mutation.createProduct': {
    base: () => ({ input: { name: 'Bounded', sku: unique(), price: 1 } }),
    rest: (a) => ({ method: 'POST', path: '/v1/products', body: a.input, headers: keyHeader(a) }),
    document:
      'mutation($input: CreateProductInput!, $idempotencyKey: String) { createProduct(input: $input, idempotencyKey: $idempotencyKey) { id name sku price imageUrl } }',
  },
  'Mutation.createUser': {
    base: () => ({ input: { name: 'Bounded', email: `${unique()}@example.com`, address: address() } }),
    rest: (a) => ({ method: 'POST', path: '/v1/users', body: a.input, headers: keyHeader(a) }),
    document: `mutation($input: CreateUserInput!, $idempotencyKey: String) { createUser(input: $input, idempotencyKey: $idempotencyKey) { ${USER} } }`,
  },
  'Mutation.updateUser': {
    base: () => ({ id: userId, input: { nickname: 'b', address: address() } }),
    rest: (a) => ({ method: 'PATCH', path: `/v1/users/${a.id}`, body: a.input }),
    document: `mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER} } }`,
  },
  'Mutation.replaceUser': {
    base: () => ({
      id: userId,
      input: { name: 'Bounded', email: `${unique()}@example.com`, address: { zipCode: '1', line1: 'x' } },
    }),
    rest: (a) => ({ method: 'PUT', path: `/v1/users/${a.id}`, body: a.input }),
    document: `mutation($id: ID!, $input: ReplaceUserInput!) { replaceUser(id: $id, input: $input) { ${USER} } }`,
  },
  'Mutation.createOrder': {
    base: () => ({ input: { userId, items: [{ productId, quantity: 1 }], shippingAddress: address() } }),
    rest: (a) => ({ method: 'POST', path: '/v1/orders', body: oneOfItemsOrDraft(a.input), headers: keyHeader(a) }),
    document: `mutation($input: CreateOrderInput!, $idempotencyKey: String) { createOrder(input: $input, idempotencyKey: $idempotencyKey) { ${ORDER} } }`,
  },
  'Mutation.updateOrder': {
    base: async () => ({ id: await order(), input: { note: 'n', shippingAddress: address() } }),
    rest: (a) => ({ method: 'PATCH', path: `/v1/orders/${a.id}`, body: a.input }),
    document: `mutation($id: ID!, $input: UpdateOrderInput!) { updateOrder(id: $id, input: $input) { ${ORDER} } }`,
  },
  'Mutation.replaceOrder': {
    base: async () => ({
      id: await order(),
      input: { status: 'PENDING', shippingAddress: { zipCode: '1', line1: 'x' } },
    }),
    rest: (a) => ({ method: 'PUT', path: `/v1/orders/${a.id}`, body: a.input }),
    document: `mutation($id: ID!, $input: ReplaceOrderInput!) { replaceOrder(id: $id, input: $input) { ${ORDER} } }`,
  },
  'Mutation.cancelOrder': {
    base: async () => ({ id: await order(), reason: 'r' }),
    rest: (a) => ({
      method: 'POST',
      path: `/v1/orders/${a.id}/cancellation`,
      body: a.reason === undefined ? {} : { reason: a.reason },
      headers: keyHeader(a),
    }),
    document:
      'mutation($id: ID!, $reason: String, $idempotencyKey: String) { cancelOrder(id: $id, reason: $reason, idempotencyKey: $idempotencyKey) { reason } }',
  },
  'Mutation.updateShipment': {
    base: async () => ({ orderId: await order('PAID'), input: { carrier: 'c' } }),
    rest: (a) => ({ method: 'PATCH', path: `/v1/orders/${a.orderId}/shipment`, body: a.input }),
    document:
      'mutation($orderId: ID!, $input: UpdateShipmentInput!) { updateShipment(orderId: $orderId, input: $input) { carrier trackingNumber } }',
  },
  'Mutation.createOrderDraft': {
    base: () => ({ input: { userId, items: [{ productId, quantity: 1 }] } }),
    rest: (a) => ({ method: 'POST', path: '/v1/order-drafts', body: a.input, headers: keyHeader(a) }),
    document:
      'mutation($input: CreateOrderDraftInput!, $idempotencyKey: String) { createOrderDraft(input: $input, idempotencyKey: $idempotencyKey) { id items { quantity } } }',
  },
  'Mutation.rateProduct': {
    base: () => ({ productId, score: 4, comment: 'c' }),
    rest: (a) => ({
      method: 'PUT',
      path: `/v1/products/${a.productId}/ratings/me`,
      body: { score: a.score, ...(a.comment === undefined ? {} : { comment: a.comment }) },
    }),
    document:
      'mutation($productId: ID!, $score: Int!, $comment: String) { rateProduct(productId: $productId, score: $score, comment: $comment) { score comment } }',
  },
  'Query.orders': {
    base: () => ({}),
    rest: (a) => ({ method: 'POST', path: '/v1/orders/search', body: searchBody(a) }),
    document:
      'query($first: Int, $filter: OrderFilter, $sort: String) { orders(first: $first, filter: $filter, sort: $sort) { id } }',
  },
  'Query.ordersConnection': {
    base: () => ({}),
    rest: (a) => ({ method: 'POST', path: '/v1/orders/search', body: searchBody(a) }),
    document:
      'query($first: Int, $after: String, $filter: OrderFilter, $sort: String) { ordersConnection(first: $first, after: $after, filter: $filter, sort: $sort) { totalCount } }',
  },
  'Query.users': {
    base: () => ({}),
    rest: (a) => ({ method: 'GET', path: '/v1/users', query: listQuery(a) }),
    document:
      'query($first: Int, $after: String, $sort: String) { users(first: $first, after: $after, sort: $sort) { totalCount } }',
  },
  'Query.products': {
    base: () => ({}),
    rest: (a) => ({ method: 'GET', path: '/v1/products', query: listQuery(a) }),
    document:
      'query($first: Int, $after: String, $sort: String) { products(first: $first, after: $after, sort: $sort) { totalCount } }',
  },
};

/** An order is placed from `items` or from a `draftId`, exactly one: a case that sends a draft sends no items. */
function oneOfItemsOrDraft(input: Args) {
  if (input.draftId === undefined) return input;
  const { items: _items, ...rest } = input;
  return rest;
}

function searchBody(args: Args) {
  const { first, after, sort, filter } = args;
  return { ...(filter ?? {}), ...defined({ size: first, cursor: after, sort }) };
}
function listQuery(args: Args) {
  return defined({ size: args.first, cursor: args.after, sort: args.sort });
}
const defined = (object: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

/** Sends a REST request (checked against the contract); the query's lists comma-separated. */
async function call({ method, path, body, query, headers }: RestRequest) {
  const search = new URLSearchParams(
    Object.entries(query ?? {}).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : String(value)]),
  );
  return checkedFetch(server.httpUrl, `${path}${search.size > 0 ? `?${search}` : ''}`, {
    method,
    headers: { ...json, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function graphql(document: string, variables: Args) {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { ...json, accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: document, variables }),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      data?: Record<string, any> | null;
      errors?: Array<{ message: string; extensions?: { code?: string; violations?: unknown[] } }>;
    },
  };
}

/** Whether `value` is an integer beyond GraphQL's `Int` (32 bits), for an `Int` member. */
const beyondGraphqlInt = (boundary: BoundaryCase, value: unknown) =>
  !boundary.id && typeof value === 'number' && Number.isInteger(value) && Math.abs(value) > 2_147_483_647;

/** `args` with `value` at `path`; GraphQL takes every ID as text. */
function withValue(args: Args, path: string[], value: unknown): Args {
  const copy = structuredClone(args);
  let node: any = copy;
  for (const key of path.slice(0, -1)) node = node[key] ??= /^\d+$/.test(key) ? [] : {};
  node[path.at(-1) as string] = value;
  return copy;
}
const asGraphqlIds = (args: Args, boundary: BoundaryCase, value: unknown): Args => {
  const text = (v: unknown) => (typeof v === 'number' ? String(v) : v);
  const converted = boundary.id ? (Array.isArray(value) ? value.map(text) : text(value)) : value;
  let out = withValue(args, boundary.path, converted);
  // The fixtures' own ids (`userId`, `productId` of the base) are IDs too.
  for (const key of ['id', 'orderId', 'productId'])
    if (typeof out[key] === 'number') out = { ...out, [key]: String(out[key]) };
  const input = out.input as Args | undefined;
  if (input && typeof input.userId === 'number') input.userId = String(input.userId);
  for (const line of (input?.items as Args[] | undefined) ?? []) {
    if (line && typeof line.productId === 'number') line.productId = String(line.productId);
  }
  return out;
};

const draftOrItems = (args: Args, boundary: BoundaryCase) =>
  boundary.path[1] === 'draftId' ? { ...args, input: oneOfItemsOrDraft({ ...args.input, draftId: 0 }) } : args;

/** The member at `path` below the argument (`['input', 'note']` → `note`) in a written resource. */
const readBack = (resource: unknown, path: string[]) =>
  path.slice(1).reduce<any>((node, key) => (node === undefined || node === null ? undefined : node[key]), resource);

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  const user = await call({
    method: 'POST',
    path: '/v1/users',
    body: { name: 'Bounded', email: 'bounded@example.com', address: { zipCode: '1', line1: 'x' } },
  });
  userId = (user.body as { id: number }).id;
  // The most stock a product may start with: enough for every order the cases place.
  const product = await call({
    method: 'POST',
    path: '/v1/products',
    body: { name: 'Bean', sku: 'BOUNDS', price: 1, stock: 1_000_000 },
  });
  productId = (product.body as { id: number }).id;
});
afterAll(async () => {
  await server?.close();
});

/** A valid value of each input object a list holds. */
const objectOf = (type: string) => (type === 'OrderLineInput' ? { productId, quantity: 1 } : {});
const cases = Object.keys(targets).flatMap((field) => casesOf(field, objectOf));

it('generates cases for every rule-carrying member of every target, and a target for every field that takes input', () => {
  expect(cases.length).toBeGreaterThan(300);
  const members = new Set(cases.map((boundary) => boundary.member));
  for (const member of [
    'CreateProductInput.price',
    'OrderLineInput.quantity',
    'OrderFilter.ids',
    'AddressInput.zipCode',
  ])
    expect(members).toContain(member);
  const untargeted = casesOf('Mutation.createProduct').length > 0 ? [] : ['Mutation.createProduct'];
  expect(untargeted).toEqual([]);
});

describe.each(Object.keys(targets))('%s', (field) => {
  const target = targets[field] as Target;
  it.each(
    casesOf(field, objectOf).map((boundary) => [`${boundary.path.join('.')} ${boundary.rule}`, boundary] as const),
  )('%s', async (_, boundary) => {
    const [restValue, gqlValue] = [sendable(boundary), sendable(boundary)];
    const restArgs = withValue(await target.base(), boundary.path, restValue);
    const rest = await call(target.rest(restArgs));
    const gqlBase = await target.base();
    const gqlArgs = asGraphqlIds(
      field === 'Mutation.createOrder' ? draftOrItems(gqlBase, boundary) : gqlBase,
      boundary,
      gqlValue,
    );
    const viaGraphql = await graphql(target.document, gqlArgs);
    const problem = rest.body as { code?: string; errors?: unknown[] };
    const error = viaGraphql.body.errors?.[0];
    expect(viaGraphql.status, JSON.stringify(viaGraphql.body)).toBeLessThan(500);
    expect(rest.status, JSON.stringify(rest.body)).toBeLessThan(500);
    if (boundary.accept) {
      // Allowed by the rules: neither protocol names the member in a VALIDATION_FAILED, and both agree.
      expect(problem.code, JSON.stringify(rest.body)).not.toBe('VALIDATION_FAILED');
      expect(error?.extensions?.code, JSON.stringify(viaGraphql.body)).not.toBe('VALIDATION_FAILED');
      expect(error?.extensions?.code ?? null).toBe(rest.status < 300 ? null : problem.code);
      // What was written reads back as sent, over both (where the resource shows the member).
      const written = viaGraphql.body.data?.[field.slice('Mutation.'.length)];
      const member = boundary.path.length === 1 ? boundary.path : boundary.path.slice(1);
      const shown = (resource: unknown) => readBack(resource, ['', ...member]);
      // An ID reads back as a nested resource in GraphQL (`product { id }`): its own cases say enough.
      const scalar = !boundary.id && (typeof restValue === 'string' || typeof restValue === 'number');
      if (rest.status < 300 && field.startsWith('Mutation.') && scalar && shown(rest.body) !== undefined) {
        expect(shown(rest.body)).toEqual(restValue);
        expect(shown(written)).toEqual(gqlValue);
      }
    } else {
      expect(rest.status, JSON.stringify(rest.body)).toBe(400);
      expect(problem.code).toBe('VALIDATION_FAILED');
      if (beyondGraphqlInt(boundary, gqlValue)) {
        // Not an Int at all: GraphQL's type refuses it before any rule (BAD_USER_INPUT, the request's fault).
        expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
        return;
      }
      expect(error?.extensions?.code, JSON.stringify(viaGraphql.body)).toBe('VALIDATION_FAILED');
      expect(error?.extensions?.violations).toEqual(problem.errors);
    }
  });
});

// Money is exact: any amount from 0.00 to 1,000,000.00 with two decimals is a price over REST and GraphQL,
// and reads back as sent.
describe('prices', () => {
  const cents = fc.integer({ min: 0, max: 100_000_000 });
  property.prop([cents], { numRuns: 60 })(
    'any two-decimal amount up to 1000000 is taken and read back',
    async (minor) => {
      const price = minor / 100;
      const rest = await call({ method: 'POST', path: '/v1/products', body: { name: 'P', sku: unique(), price } });
      expect(rest.status, JSON.stringify(rest.body)).toBe(201);
      expect((rest.body as { price: number }).price).toBe(price);
      const viaGraphql = await graphql(targets['Mutation.createProduct']?.document as string, {
        input: { name: 'P', sku: unique(), price },
      });
      expect(viaGraphql.body.errors).toBeUndefined();
      expect(viaGraphql.body.data?.createProduct.price).toBe(price);
    },
  );
});

// The examples of the issue, each refused before by one protocol and taken by the other, or the reverse.
describe('the examples that drifted', () => {
  it('refuses a line of -4 that a line of 5 of the same product would have merged into 1', async () => {
    const items = [
      { productId, quantity: 5 },
      { productId, quantity: -4 },
    ];
    const rest = await call({ method: 'POST', path: '/v1/orders', body: { userId, items } });
    const viaGraphql = await graphql(targets['Mutation.createOrder']?.document as string, {
      input: { userId: String(userId), items: items.map((line) => ({ ...line, productId: String(productId) })) },
    });
    expect(rest.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'body', name: '/items/1/quantity' }] });
    expect(viaGraphql.body.errors?.[0]?.extensions?.violations).toEqual((rest.body as { errors: unknown }).errors);
  });

  it('lists no order for `ids: []` (it listed every order), as REST refuses it', async () => {
    const viaGraphql = await graphql('{ orders(filter: { ids: [] }) { id } }', {});
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(viaGraphql.body.data ?? null).toBeNull();
  });

  it('sells a product priced 12000 (the core compared cents with a bound in units)', async () => {
    const rest = await call({
      method: 'POST',
      path: '/v1/products',
      body: { name: 'Big', sku: unique(), price: 12_000, stock: 1 },
    });
    expect(rest.status).toBe(201);
    const placed = await call({
      method: 'POST',
      path: '/v1/orders',
      body: { userId, items: [{ productId: (rest.body as { id: number }).id, quantity: 1 }] },
    });
    expect(placed.status).toBe(201);
    expect((placed.body as { amount: number }).amount).toBe(12_000);
  });
});

// gRPC: every buf.validate rule of the Inventory requests, at the bound and past it, through an independent
// @grpc/grpc-js client. A value the rules allow is not INVALID_ARGUMENT (it may name an unknown SKU); one
// they refuse is INVALID_ARGUMENT with a google.rpc.BadRequest naming the field, as REST names a member.
describe('gRPC', () => {
  const requests: Record<string, [string, () => Args]> = {
    ReserveRequest: ['Reserve', () => ({ orderId: String(990_000 + ++counter), sku: 'BOUNDS', quantity: 1 })],
    ReleaseRequest: ['Release', () => ({ orderId: '1', sku: 'BOUNDS' })],
    GetStockRequest: ['GetStock', () => ({ sku: 'BOUNDS' })],
    AdjustStockRequest: ['AdjustStock', () => ({ sku: 'BOUNDS', delta: 0, reason: '' })],
    ReserveOrderRequest: ['ReserveOrder', () => ({ orderId: String(990_000 + ++counter), lines: [line()] })],
  };
  // A field of a line is sent in the one line of a ReserveOrder, and named by its path there.
  const lineRequest = (field: string, value: unknown) => ({
    orderId: String(990_000 + ++counter),
    lines: [{ ...line(), [field]: value }],
  });
  const protoCases = protoBoundaryCases(path.resolve(import.meta.dirname, '../../contracts'), {
    'ReserveOrderRequest.lines': line,
  });

  it('generates cases for every rule of every request', () => {
    const messages = new Set(protoCases.map((boundary) => boundary.message));
    expect([...messages].sort()).toEqual([...Object.keys(requests), 'ReserveLine', 'WatchStockRequest'].sort());
  });

  it('refuses a ReserveOrder that names one SKU twice, naming the lines', async () => {
    const client = grpcClient({ address: server.grpcUrl });
    try {
      const twice = {
        orderId: String(990_000 + ++counter),
        lines: [
          { sku: 'BOUNDS', quantity: 1 },
          { sku: 'BOUNDS', quantity: 2 },
        ],
      };
      const outcome = await client.call('ReserveOrder', twice);
      expect(outcome.code, outcome.details).toBe(grpc.status.INVALID_ARGUMENT);
      expect(badRequestFields(outcome.error)).toContain('lines');
    } finally {
      client.close();
    }
  });

  // WatchStock is a stream: its rule (the SKU's form) is the same as GetStock's, which is proven here.
  it.each(
    protoCases
      .filter((boundary) => boundary.message !== 'WatchStockRequest')
      .map((c) => [`${c.message}.${c.field} ${c.rule}`, c] as const),
  )('%s', async (_, boundary) => {
    const inLine = boundary.message === 'ReserveLine';
    const [method, base] = inLine ? ['ReserveOrder', () => ({})] : (requests[boundary.message] as [string, () => Args]);
    const value = boundary.value(unique);
    const request = inLine ? lineRequest(camel(boundary.field), value) : { ...base(), [camel(boundary.field)]: value };
    const client = grpcClient({ address: server.grpcUrl });
    try {
      const outcome = await client.call(method, request);
      expect(outcome.code, outcome.details).not.toBe(grpc.status.INTERNAL);
      if (boundary.accept) expect(outcome.code, outcome.details).not.toBe(grpc.status.INVALID_ARGUMENT);
      else {
        expect(outcome.code, outcome.details).toBe(grpc.status.INVALID_ARGUMENT);
        expect(badRequestFields(outcome.error)).toContain(inLine ? `lines[0].${boundary.field}` : boundary.field);
      }
    } finally {
      client.close();
    }
  });
});

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The fields a status's google.rpc.BadRequest names (`grpc-status-details-bin`: a google.rpc.Status). */
function badRequestFields(error: grpc.ServiceError | undefined): string[] {
  const [details] = (error?.metadata.get('grpc-status-details-bin') ?? []) as Buffer[];
  if (!details) return [];
  const fields: string[] = [];
  const status = new BinaryReader(details);
  while (status.pos < status.len) {
    const [number, type] = status.tag();
    if (number !== 3) {
      status.skip(type);
      continue;
    }
    const any = new BinaryReader(status.bytes());
    let typeUrl = '';
    let value: Uint8Array = new Uint8Array();
    while (any.pos < any.len) {
      const [field, kind] = any.tag();
      if (field === 1) typeUrl = any.string();
      else if (field === 2) value = any.bytes();
      else any.skip(kind);
    }
    if (typeUrl.endsWith('/google.rpc.BadRequest'))
      fields.push(...fromBinary(BadRequestSchema, value).fieldViolations.map((violation) => violation.field));
  }
  return fields;
}
