/**
 * Partial answers (after Google AIP-157) against a real server: `fields` on single reads, on
 * every list and in the search body; `amountDetail` by name; unknown names; ETags of the full
 * representation. Every answer is checked against the contract, a partial one against its schema with
 * `required` narrowed to the requested members (test/support/contract.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { RunningServer } from '../../src/main.js';
import { contractClient, type ProblemBody, recordingClient } from '../support/client.js';
import { checkedFetch, expectContract } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'partial-test-admin-key-0123456789';

let server: RunningServer;
let admin: ReturnType<typeof contractClient>;
let customerKey: string;
let customerId: number;
let productId: number;
let orderId: number;

type Members = Record<string, unknown>;
type Page = { items: Members[]; nextCursor?: string; hasNext: boolean; totalCount?: number };

const call = (url: string, init: RequestInit & { key?: string } = {}) => {
  const { key = ADMIN_KEY, headers, ...rest } = init;
  return checkedFetch(server.httpUrl, url, {
    ...rest,
    headers: {
      authorization: `Bearer ${key}`,
      ...(rest.body ? { 'content-type': 'application/json' } : {}),
      ...(headers as Record<string, string>),
    },
  });
};
const search = (body: Members) => call('/v1/orders/search', { method: 'POST', body: JSON.stringify(body) });
const keysOf = (value: unknown) => Object.keys(value as Members).sort();
const page = (body: unknown) => body as Page;
const problem = (body: unknown) => body as ProblemBody;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  admin = contractClient(server.httpUrl, ADMIN_KEY);
  const user = await admin.POST('/v1/users', {
    body: { name: 'Dana', email: `dana-${Date.now()}@example.com`, address: { zipCode: '04524', line1: '1 Road' } },
  });
  customerId = user.data?.id as number;
  customerKey = (await admin.POST('/v1/api-keys', { body: { userId: customerId, role: 'customer' } })).data
    ?.key as string;
  const product = await admin.POST('/v1/products', {
    body: { name: 'Milk jug', sku: 'JUG-1', price: 22, stock: 100 },
  });
  productId = product.data?.id as number;
  const customer = contractClient(server.httpUrl, customerKey);
  for (let index = 0; index < 3; index++) {
    const order = await customer.POST('/v1/orders', { body: { items: [{ productId, quantity: index + 1 }] } });
    orderId = order.data?.id as number;
  }
});
afterAll(() => server?.close());

describe('fields on a single resource', () => {
  it('answers an order with exactly the members named, comma-separated or repeated', async () => {
    const comma = await call(`/v1/orders/${orderId}?fields=id,status`);
    expect(comma.status).toBe(200);
    expect(comma.body).toEqual({ id: orderId, status: 'PENDING' });
    const repeated = await call(`/v1/orders/${orderId}?fields=status&fields=id`);
    expect(repeated.body).toEqual(comma.body);
    // A generated client sends the repeated form by default, and its types offer the names.
    const { data } = await admin.GET('/v1/orders/{orderId}', {
      params: { path: { orderId }, query: { fields: ['id', 'items'] } },
    });
    expect(keysOf(data)).toEqual(['id', 'items']);
    expect(data?.items?.[0]).toMatchObject({ productId, sku: 'JUG-1' });
  });

  it('answers amountDetail when named, as include=amountDetail does', async () => {
    const named = await call(`/v1/orders/${orderId}?fields=amountDetail`);
    expect(named.body).toEqual({ amountDetail: { supply: 60, vat: 6, total: 66 } });
    const included = await call(`/v1/orders/${orderId}?include=amountDetail&fields=id,amountDetail`);
    expect(keysOf(included.body)).toEqual(['amountDetail', 'id']);
    const notNamed = await call(`/v1/orders/${orderId}?include=amountDetail&fields=id`);
    expect(notNamed.body).toEqual({ id: orderId });
  });

  it('gives a partial GET the ETag of the full one, and 304 for it', async () => {
    const full = await call(`/v1/orders/${orderId}`);
    const partial = await call(`/v1/orders/${orderId}?fields=id`);
    const etag = full.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(partial.headers.get('etag')).toBe(etag);
    const cached = await call(`/v1/orders/${orderId}?fields=id`, { headers: { 'If-None-Match': etag as string } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    const user = await call(`/v1/users/${customerId}?fields=email`);
    expect(user.body).toEqual({ email: expect.stringContaining('@example.com') });
    expect(user.headers.get('etag')).toBe((await call(`/v1/users/${customerId}`)).headers.get('etag'));
  });

  it('shapes users, the caller and products alike', async () => {
    expect(keysOf((await call('/v1/users/me?fields=id,name', { key: customerKey })).body)).toEqual(['id', 'name']);
    expect((await call(`/v1/products/${productId}?fields=sku,price`)).body).toEqual({ sku: 'JUG-1', price: 22 });
  });
});

describe('fields on lists', () => {
  it('applies to every item and keeps the envelope: nextCursor, hasNext, totalCount', async () => {
    const first = page((await call('/v1/orders?fields=id,amount&size=2&withTotal=true&sort=id')).body);
    expect(first.items).toHaveLength(2);
    for (const item of first.items) expect(keysOf(item)).toEqual(['amount', 'id']);
    expect(first).toMatchObject({ hasNext: true, totalCount: 3, nextCursor: expect.any(String) });
    // The cursor is bound to filters and sort, not to fields: the next page may ask for other members.
    const second = page((await call(`/v1/orders?size=2&sort=id&cursor=${first.nextCursor}&fields=id`)).body);
    expect(second.items.map(keysOf)).toEqual([['id']]);
    expect(second).toEqual({ items: [{ id: orderId }], hasNext: false });
  });

  it('answers amountDetail on each order when named', async () => {
    const listed = page((await call('/v1/orders?fields=amountDetail,id')).body);
    for (const item of listed.items) expect(item.amountDetail).toMatchObject({ total: expect.any(Number) });
  });

  it('shapes the items of an order, users and products', async () => {
    const items = page((await call(`/v1/orders/${orderId}/items?fields=sku,quantity`)).body);
    expect(items).toEqual({ items: [{ sku: 'JUG-1', quantity: 3 }], hasNext: false });
    const users = page((await call('/v1/users?fields=email')).body);
    for (const user of users.items) expect(keysOf(user)).toEqual(['email']);
    const products = page((await call('/v1/products?fields=name&withTotal=true')).body);
    expect(products).toEqual({ items: [{ name: 'Milk jug' }], hasNext: false, totalCount: 1 });
  });

  it('takes fields in the search body, amountDetail included', async () => {
    const found = page((await search({ fields: ['id', 'status'], size: 2, withTotal: true })).body);
    expect(found.items.map(keysOf)).toEqual([
      ['id', 'status'],
      ['id', 'status'],
    ]);
    expect(found).toMatchObject({ hasNext: true, totalCount: 3 });
    const detailed = page((await search({ ids: [orderId], fields: ['amountDetail'] })).body);
    expect(detailed.items).toEqual([{ amountDetail: { supply: 60, vat: 6, total: 66 } }]);
    const both = page((await search({ ids: [orderId], include: [], fields: ['amountDetail'] })).body);
    expect(both.items).toEqual(detailed.items);
    // From the generated client too, whose answers the contract check reads with the body it sent.
    const { data } = await admin.POST('/v1/orders/search', { body: { ids: [orderId], fields: ['status'] } });
    expect(data).toEqual({ items: [{ status: 'PENDING' }], hasNext: false });
  });
});

describe('fields that name nothing', () => {
  it('refuses an unknown name with 400 VALIDATION_FAILED naming the parameter and the name', async () => {
    const unknown = await call(`/v1/orders/${orderId}?fields=id,bogus`);
    expect([unknown.status, problem(unknown.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(problem(unknown.body).errors).toEqual([
      { in: 'query', name: 'fields', message: expect.stringContaining('"bogus" is not one of id, userId') },
    ]);
    // A member of another resource is unknown here.
    const listed = await call('/v1/products?fields=email');
    expect(problem(listed.body).errors).toEqual([
      { in: 'query', name: 'fields', message: expect.stringContaining('"email"') },
    ]);
    const inBody = await search({ fields: ['id', 'bogus'] });
    expect([inBody.status, problem(inBody.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(problem(inBody.body).errors).toEqual([
      { in: 'body', name: '/fields/1', message: expect.stringContaining('"bogus"') },
    ]);
  });

  it('refuses an empty fields, in the query and in the body', async () => {
    const empty = await call(`/v1/orders/${orderId}?fields=`);
    expect([empty.status, problem(empty.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(problem(empty.body).errors).toEqual([
      { in: 'query', name: 'fields', message: 'must name at least one value' },
    ]);
    const emptyName = await call('/v1/users?fields=id,');
    expect(problem(emptyName.body).errors).toEqual([
      { in: 'query', name: 'fields', message: expect.stringContaining('"" is not one of') },
    ]);
    const inBody = await search({ fields: [] });
    expect([inBody.status, problem(inBody.body).code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('is a parameter only where the contract offers it', async () => {
    const shipment = await call(`/v1/orders/${orderId}/shipment?fields=id`);
    expect([shipment.status, problem(shipment.body).code]).toEqual([400, 'UNKNOWN_PARAMETER']);
  });
});

describe('the contract of partial answers', () => {
  const document = parseYaml(
    readFileSync(path.resolve(import.meta.dirname, '../../contracts/openapi.yaml'), 'utf8'),
  ) as { components: { schemas: Record<string, { enum?: string[]; properties?: Members }> } };
  const schemas = document.components.schemas;

  it('names every top-level member of each resource, and nothing else, in its fields enum', () => {
    for (const resource of ['Order', 'OrderItem', 'User', 'Product']) {
      expect(schemas[`${resource}Field`]?.enum, resource).toEqual(Object.keys(schemas[resource]?.properties ?? {}));
    }
  });

  it('checks a partial answer against the schema narrowed to the fields, and no further', async () => {
    const order = (await call(`/v1/orders/${orderId}`)).body as Members;
    const seen = (body: unknown) => ({
      status: 200,
      headers: new Headers({ 'content-type': 'application/json', etag: '"1"', 'x-request-id': 'partial' }),
      text: JSON.stringify(body),
    });
    const url = `/v1/orders/${orderId}?fields=id,status`;
    await expect(expectContract('GET', url, seen({ id: order.id, status: order.status }))).resolves.toBeDefined();
    // A member beyond the fields, or a named member missing, fails the check.
    await expect(expectContract('GET', url, seen({ ...order }))).rejects.toThrow(/partial: id,status/);
    await expect(expectContract('GET', url, seen({ id: order.id }))).rejects.toThrow(/"missingProperty": "status"/);
    // Without fields, a partial answer breaks the full schema.
    await expect(expectContract('GET', `/v1/orders/${orderId}`, seen({ id: order.id }))).rejects.toThrow();
    const list = seen({ items: [{ id: 1 }], hasNext: false });
    await expect(expectContract('GET', '/v1/orders?fields=id', list)).resolves.toBeDefined();
    await expect(
      expectContract('POST', '/v1/orders/search', list, undefined, '{"fields":["id"]}'),
    ).resolves.toBeDefined();
    await expect(expectContract('POST', '/v1/orders/search', list)).rejects.toThrow();
  });

  it('sends fields as a generated client does, for a list', async () => {
    const { client: plain, sent } = recordingClient(server.httpUrl, ADMIN_KEY);
    const { data } = await plain.GET('/v1/users', { params: { query: { fields: ['id', 'name'] } } });
    expect(new URL(sent[0] as string).search).toBe('?fields=id&fields=name');
    for (const user of data?.items ?? []) expect(keysOf(user)).toEqual(['id', 'name']);
  });
});
