import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { inventoryV2Service } from '../fixtures/versioning/inventory-v2-service.js';
import { CURRENCY, v2OrderHandlers } from '../fixtures/versioning/v2-order-handlers.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { grpcClient } from '../support/grpc-client.js';
import { startFixtureServer } from '../support/server.js';
import { versioningFixture } from '../support/versioning-fixture.js';

// The fixture contract cuts v2 for orders only (test/fixtures/versioning/v2-orders.yaml); one
// process serves v1 and v2 side by side from one core. Every answer is checked against the fixture contract.
const ADMIN_KEY = 'versions-admin-key-0123456789';
// v1 is deprecated as a whole by one mark in the contract (`info.x-versions`): one registry item, `rest.v1`.
const V1_MARK = { deprecatedOn: '2026-11-01', sunset: '2027-06-01', replacedBy: 'v2' };
const fixture = versioningFixture((document) => {
  document.info['x-versions'] = { v1: V1_MARK };
});
let clock = new Date('2026-11-26T10:00:00.000Z');
const contractFile = path.join(fixture.root, 'contracts/openapi.yaml');
const database = serverDatabase('versions');
let server: RunningServer;
let userId: number;
let productId: number;

type Json = Record<string, any>;

async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  key = ADMIN_KEY,
) {
  const response = await fetch(new URL(url, server.httpUrl), {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const seen = await see(response);
  const json = (await expectContract(method, url, seen, contractFile)) as Json;
  return { status: seen.status, headers: seen.headers, body: json };
}

const placeV1 = async () => (await call('POST', '/v1/orders', { userId, items: [{ productId, quantity: 3 }] })).body;

beforeAll(async () => {
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    versionHandlers: v2OrderHandlers,
    versionServices: [inventoryV2Service(path.join(fixture.root, 'contracts'))],
    now: () => clock,
    env: { RATE_LIMIT_ENABLED: 'true' },
  });
  userId = (
    await call('POST', '/v1/users', {
      name: 'Vera Versions',
      email: 'vera@example.com',
      address: { zipCode: '04524', line1: '12 Harbor Road' },
    })
  ).body.id;
  const product = { name: 'Two-version mug', sku: 'MUG-V2', price: 12.35, stock: 1000 };
  productId = (await call('POST', '/v1/products', product)).body.id;
  for (const sku of ['MUG-V2-B', 'MUG-V2-C']) await call('POST', '/v1/products', { ...product, sku });
});

afterAll(async () => {
  await server?.close();
  await database.remove();
  fixture.remove();
});

describe('v1 and v2 side by side, one core', () => {
  it('read the same stored order and agree on the numbers, each in its own shape', async () => {
    const placed = await placeV1();
    const v1 = (await call('GET', `/v1/orders/${placed.id}?include=amountDetail`)).body;
    const v2 = (await call('GET', `/v2/orders/${placed.id}`)).body;
    expect(v1.amount).toBe(37.05);
    expect(v2.amount).toEqual({ ...v1.amountDetail, currency: CURRENCY });
    expect(v2).not.toHaveProperty('amountDetail');
    const { amount: _1, amountDetail: _2, ...v1Rest } = v1;
    const { amount: _3, ...v2Rest } = v2;
    expect(v2Rest).toEqual(v1Rest);
  });

  it('write through v2 and read back through v1; Location names the version written to', async () => {
    const created = await call('POST', '/v2/orders', { userId, items: [{ productId, quantity: 2 }], note: 'v2' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v2/orders/${created.body.id}`);
    expect(created.body.amount.total).toBe(24.7);
    const patched = await call('PATCH', `/v2/orders/${created.body.id}`, { note: 'changed in v2' });
    expect(patched.body.amount.total).toBe(24.7);
    const v1 = (await call('GET', `/v1/orders/${created.body.id}`)).body;
    expect(v1).toMatchObject({ id: created.body.id, amount: 24.7, note: 'changed in v2' });
    // An operation v2 leaves unchanged is v1's, under /v2: a product created there is found at /v2.
    const product = await call('POST', '/v2/products', { name: 'Made in v2', sku: 'V2-MADE', price: 1 });
    expect(product.headers.get('location')).toBe(`/v2/products/${product.body.id}`);
    expect((await call('DELETE', `/v2/orders/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/orders/${created.body.id}`)).status).toBe(404);
  });

  it('replay an Idempotency-Key across versions in the version of the replay', async () => {
    const body = { userId, items: [{ productId, quantity: 1 }] };
    const key = { 'idempotency-key': `versions-${Date.now()}` };
    const first = await call('POST', '/v1/orders', body, key);
    const replay = await call('POST', '/v2/orders', body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v2/orders/${first.body.id}`);
    expect(replay.body).toMatchObject({ id: first.body.id, amount: { total: first.body.amount, currency: CURRENCY } });
  });

  it('serve /v2/products as /v1/products, with interchangeable cursors', async () => {
    const v1 = await call('GET', '/v1/products?size=1');
    const v2 = await call('GET', '/v2/products?size=1');
    expect(v2.body).toEqual(v1.body);
    const fromV1 = await call('GET', `/v2/products?size=1&cursor=${v1.body.nextCursor}`);
    const fromV2 = await call('GET', `/v1/products?size=1&cursor=${v2.body.nextCursor}`);
    expect(fromV1.status).toBe(200);
    expect(fromV2.body).toEqual(fromV1.body);
  });

  it("refuse a changed list's cursor in the other version; a cursor without a version stays v1's", async () => {
    await placeV1();
    const v1Page = await call('GET', '/v1/orders?size=1');
    const v2Page = await call('GET', '/v2/orders?size=1');
    expect((await call('GET', `/v1/orders?size=1&cursor=${v1Page.body.nextCursor}`)).status).toBe(200);
    expect((await call('GET', `/v2/orders?size=1&cursor=${v2Page.body.nextCursor}`)).status).toBe(200);
    const v2InV1 = await call('GET', `/v1/orders?size=1&cursor=${v2Page.body.nextCursor}`);
    expect(v2InV1.status).toBe(400);
    expect(v2InV1.body).toMatchObject({ code: 'INVALID_CURSOR', detail: expect.stringMatching(/made by v2/) });
    const v1InV2 = await call('POST', '/v2/orders/search', { size: 1, cursor: v1Page.body.nextCursor });
    expect(v1InV2.body).toMatchObject({ code: 'INVALID_CURSOR', detail: expect.stringMatching(/made by v1/) });
  });

  it('draw on one rate budget across versions, and know no version the contract does not declare', async () => {
    // Anonymous reads draw on the client address's budget (300 points a minute, a point back every 200 ms):
    // ten reads spread over both versions take ten points from the one budget, not five from each of two.
    const remaining = async (url: string) =>
      Number(/;r=(\d+)/.exec((await fetch(`${server.httpUrl}${url}`)).headers.get('ratelimit') ?? '')?.[1]);
    const before = await remaining(`/v1/products/${productId}`);
    await Promise.all(Array.from({ length: 10 }, (_, i) => fetch(`${server.httpUrl}/v${(i % 2) + 1}/products`)));
    expect(await remaining(`/v2/products/${productId}`)).toBeLessThanOrEqual(before - 8);
    expect((await call('GET', '/v3/products')).status).toBe(404);
    const wrongMethod = await call('PUT', '/v2/orders');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST, HEAD');
  });
});

describe('v1 deprecated as a whole (info.x-versions)', () => {
  it('signals every v1 operation, none of v2, and counts v1 against v2 per key like a replacement', async () => {
    const me = (await call('GET', '/v1/users/me')).body;
    const issued = (await call('POST', '/v1/api-keys', { userId: me.id, role: 'admin' })).body;
    const secret = issued.key as string;
    const v1 = await call('GET', `/v1/products/${productId}`, undefined, {}, secret);
    expect(v1.headers.get('deprecation')).toBe(`@${Date.parse(`${V1_MARK.deprecatedOn}T00:00:00Z`) / 1000}`);
    expect(v1.headers.get('sunset')).toBe(new Date(`${V1_MARK.sunset}T00:00:00Z`).toUTCString());
    expect(v1.headers.get('link')).toContain('/docs/deprecations#rest.v1>; rel="deprecation"');
    await call('GET', '/v1/orders?size=1', undefined, {}, secret);
    for (const url of [`/v2/products/${productId}`, '/v2/orders?size=1', `/v2/users/${me.id}`]) {
      expect((await call('GET', url, undefined, {}, secret)).headers.get('deprecation')).toBeNull();
    }
    await server.flushUsage();
    const callers = (await call('GET', '/v2/deprecations/rest.v1/callers')).body.items as Json[];
    const caller = callers.find((entry) => entry.apiKeyId === issued.id);
    expect(caller).toMatchObject({ uses: 2, replacementUses: 3, brownoutHits: 0 });
  });

  it('browns out every v1 operation as one item while v2 answers', async () => {
    const window = { item: 'rest.v1', startsAt: '2026-12-10T10:00:00.000Z', endsAt: '2026-12-10T10:30:00.000Z' };
    expect((await call('POST', '/v2/brownouts', window)).status).toBe(201);
    clock = new Date('2026-12-10T10:10:00.000Z');
    try {
      // Raw reads: the fixture's v1 operations do not each document the 410 a brownout answers.
      for (const url of [`/v1/products/${productId}`, '/v1/orders']) {
        const refused = await fetch(`${server.httpUrl}${url}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
        expect([refused.status, ((await refused.json()) as Json).code]).toEqual([410, 'BROWNOUT']);
      }
      expect((await call('GET', `/v2/products/${productId}`)).status).toBe(200);
      expect((await call('GET', '/v2/orders')).status).toBe(200);
    } finally {
      clock = new Date('2026-11-26T10:00:00.000Z');
    }
  });
});

describe('the reference per version', () => {
  it('publishes each version’s document beside the whole contract, and a page per version', async () => {
    const whole = (await (await fetch(`${server.httpUrl}/contracts/openapi`)).json()) as Json;
    expect(Object.keys(whole.paths)).toEqual(expect.arrayContaining(['/v1/orders', '/v2/orders']));
    const v2 = (await (await fetch(`${server.httpUrl}/contracts/openapi/v2`)).json()) as Json;
    expect(v2.paths['/v2/orders'].get.operationId).toBe('listOrdersV2');
    expect(v2.paths['/v2/orders/{orderId}'].delete.operationId).toBe('deleteOrder');
    expect(v2.paths['/v2/products'].get.operationId).toBe('listProducts');
    expect(Object.keys(v2.paths).some((p) => p.startsWith('/v1/'))).toBe(false);
    const v1 = (await (await fetch(`${server.httpUrl}/contracts/openapi/v1`)).json()) as Json;
    expect(v1.paths['/v1/orders'].get.operationId).toBe('listOrders');
    expect(Object.keys(v1.paths).some((p) => p.startsWith('/v2/'))).toBe(false);
    expect((await fetch(`${server.httpUrl}/contracts/openapi/v3`)).status).toBe(404);
    const page = await (await fetch(`${server.httpUrl}/docs/v1`)).text();
    expect(page).toContain('<a href="/docs/v2">v2 (current)</a> · <a href="/docs/v1">v1</a>');
    const init = await (await fetch(`${server.httpUrl}/docs/assets/init.js`)).text();
    expect(init).toContain('"v1":"/contracts/openapi/v1"');
  });
});

describe('gRPC inventory.v2 beside inventory.v1', () => {
  it('serves the changed message from the same core in the same process, and publishes both packages', async () => {
    const protoRoot = path.join(fixture.root, 'contracts');
    const v1 = grpcClient({ address: server.grpcUrl });
    const v2 = grpcClient({
      address: server.grpcUrl,
      protoRoot,
      proto: 'inventory/v2/inventory.proto',
      service: 'inventory.v2.Inventory',
    });
    onTestFinished(() => {
      v1.close();
      v2.close();
    });
    const one = await v1.reply('GetStock', { sku: 'MUG-V2' });
    const two = await v2.reply('GetStock', { sku: 'MUG-V2' });
    expect(one.stock.onHand).toBeGreaterThan(900);
    expect(two.stock).toEqual(one.stock);
    const adjusted = await v2.reply('AdjustStock', { sku: 'MUG-V2', delta: 5 });
    expect(adjusted.stock.onHand).toBe(one.stock.onHand + 5);
    expect((await v1.reply('GetStock', { sku: 'MUG-V2' })).stock.onHand).toBe(one.stock.onHand + 5);
    const published = await (await fetch(`${server.httpUrl}/contracts/inventory`)).text();
    expect(published).toContain('package inventory.v1;');
    expect(published).toContain('package inventory.v2;');
  });
});
