/**
 * A key reads its own request shapes (docs/decisions.md §13): REST `GET /v1/api-keys/{id}/request-shapes`
 * and `/me/request-shapes`, and GraphQL `me { requestShapes }`, answer the same shapes, paged, filtered by
 * protocol; another customer's key is 404 as an unknown one; an admin reads any key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { grpcClient } from '../support/grpc-client.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'shape-resource-admin-key-0123456789';
let server: RunningServer;
const keys = {} as Record<'ann' | 'bo', { secret: string; id: number }>;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, USAGE_FLUSH_MS: '600000' });
  const admin: Caller = await server.core.apiKeys.authenticate(ADMIN_KEY);
  for (const name of ['ann', 'bo'] as const) {
    const user = (
      await server.core.users.create(admin, {
        name,
        email: `${name}@shape-resource.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await server.core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
    keys[name] = { secret: issued.secret, id: issued.apiKey.id };
  }
  const headers = { authorization: `Bearer ${keys.ann.secret}`, 'user-agent': 'shape-reader/2.1' };
  await checkedFetch(server.httpUrl, '/v1/orders?status=PAID,shipped&sort=-amount', { headers });
  await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query Mine { orders(first: 3) { id status } }' }),
  });
  const grpc = grpcClient({ address: server.grpcUrl, apiKey: keys.ann.secret, userAgent: 'shape-reader/2.1' });
  await grpc.call('GetStock', { sku: 'NO-SUCH-SKU' });
  grpc.close();
  await server.flushUsage();
});
afterAll(() => server?.close());

const rest = (key: string, path: string) =>
  checkedFetch(server.httpUrl, path, { headers: { authorization: `Bearer ${key}` } });
type Shape = { id: string; protocol: string; shape: string; signature: string | null; uses: number; clients: string[] };

describe('a key reads its own request shapes', () => {
  it('lists them over REST, by protocol and name, names only', async () => {
    const { status, body } = await rest(keys.ann.secret, '/v1/api-keys/me/request-shapes?size=100');
    expect(status).toBe(200);
    const items = (body as { items: Shape[] }).items;
    const names = items.map((item) => item.id);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : 1)));
    expect(names).toEqual(
      expect.arrayContaining([
        'rest GET /v1/orders',
        'rest GET /v1/orders query:status',
        'rest OrderStatusFilterValue=PAID',
        'rest OrderStatusFilterValue=SHIPPED',
        'rest GET /v1/orders query:sort=amount',
        'grpc inventory.v1.Inventory/GetStock',
        'grpc inventory.v1.GetStockRequest.sku',
      ]),
    );
    const signature = items.find((item) => item.protocol === 'graphql');
    expect(signature?.signature).toBe('query Mine{orders(first:0){id status}}');
    expect(signature?.clients).toEqual(['shape-reader/2.1']);
    // The key's own by id is the same list.
    const byId = await rest(keys.ann.secret, `/v1/api-keys/${keys.ann.id}/request-shapes?size=100`);
    expect((byId.body as { items: Shape[] }).items).toEqual(items);
  });

  it('pages with cursors, and filters by protocol', async () => {
    const first = await rest(keys.ann.secret, '/v1/api-keys/me/request-shapes?size=2&protocol=rest&withTotal=true');
    const page = first.body as { items: Shape[]; nextCursor: string; totalCount: number };
    expect(page.items.every((item) => item.protocol === 'rest')).toBe(true);
    expect(page.totalCount).toBeGreaterThan(4);
    const second = await rest(
      keys.ann.secret,
      `/v1/api-keys/me/request-shapes?size=2&protocol=rest&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    const next = (second.body as { items: Shape[] }).items;
    expect((next[0]?.id ?? '') > (page.items[1]?.id ?? '')).toBe(true);
    // A cursor is bound to its filters.
    const other = await rest(
      keys.ann.secret,
      `/v1/api-keys/me/request-shapes?size=2&protocol=grpc&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    expect(other.status).toBe(400);
  });

  it('answers the same over GraphQL', async () => {
    const response = await fetch(`${server.httpUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.ann.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ me { requestShapes(first: 100, protocol: grpc) { nodes { id shape uses clients } totalCount } } }',
      }),
    });
    const { data } = (await response.json()) as {
      data: { me: { requestShapes: { nodes: Shape[]; totalCount: number } } };
    };
    const overRest = await rest(keys.ann.secret, '/v1/api-keys/me/request-shapes?size=100&protocol=grpc');
    const restItems = (overRest.body as { items: Shape[] }).items;
    expect(data.me.requestShapes.nodes).toEqual(
      restItems.map(({ id, shape, uses, clients }) => ({ id, shape, uses, clients })),
    );
    expect(data.me.requestShapes.totalCount).toBe(restItems.length);
  });

  it("is 404 for another customer's key, as for one that does not exist, and readable by an admin", async () => {
    const other = await rest(keys.bo.secret, `/v1/api-keys/${keys.ann.id}/request-shapes`);
    const none = await rest(keys.bo.secret, '/v1/api-keys/999999/request-shapes');
    expect([other.status, none.status]).toEqual([404, 404]);
    expect((other.body as { code: string }).code).toBe('API_KEY_NOT_FOUND');
    const admin = await rest(ADMIN_KEY, `/v1/api-keys/${keys.ann.id}/request-shapes?size=100`);
    expect(admin.status).toBe(200);
    expect((admin.body as { items: Shape[] }).items.length).toBeGreaterThan(5);
    // Bo sent nothing yet but this: his own list holds only these reads.
    const bo = await rest(keys.bo.secret, '/v1/api-keys/me/request-shapes');
    expect((bo.body as { items: Shape[] }).items).toEqual([]);
  });
});
