/**
 * Webhooks as a receiver meets them: a real HTTP receiver on loopback gets signed order events (verified
 * with the standardwebhooks library), retries after a 500 with the same webhook-id, a 410 disables the
 * endpoint, SSRF targets are refused, a customer gets only its own orders' events, redelivery, and
 * GET /v1/events pages and filters. Every REST answer is checked against contracts/openapi.yaml.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';
import { until } from '../support/until.js';

const ADMIN_KEY = 'webhooks-test-admin-key-0123456789';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: RunningServer;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Status codes the receiver answers with, per path, in turn (200 once they run out). */
const answers = new Map<string, number[]>();

async function call<T = Record<string, unknown>>(path: string, init: RequestInit & { key?: string } = {}) {
  const { key = ADMIN_KEY, ...rest } = init;
  const seen = await checkedFetch(server.httpUrl, path, {
    ...rest,
    headers: { authorization: `Bearer ${key}`, ...(rest.body ? { 'content-type': 'application/json' } : {}) },
  });
  return { status: seen.status, body: seen.body as T };
}
const post = <T = Record<string, unknown>>(path: string, body: unknown, key = ADMIN_KEY) =>
  call<T>(path, { method: 'POST', body: JSON.stringify(body), key });

const deliveredTo = (path: string) => received.filter((r) => r.path === path);
const typesAt = (path: string) => deliveredTo(path).map((r) => JSON.parse(r.body).type as string);

async function endpoint(path: string, events: string[], key = ADMIN_KEY) {
  const created = await post<{ id: number; secret: string }>(
    '/v1/webhook-endpoints',
    { url: `${receiverUrl}${path}`, events },
    key,
  );
  expect(created.status).toBe(201);
  return created.body;
}

let customerKey: string;
let customerId: number;
let otherKey: string;
let otherId: number;
let productId: number;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body });
      response.statusCode = answers.get(path)?.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    SEED_DEMO: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SECONDS: '0,0',
    WEBHOOK_POLL_MS: '1000',
  });
  const user = async (name: string) =>
    (await post<{ id: number }>('/v1/users', { name, email: `${name}@hooks.example.com` })).body.id;
  customerId = await user('carla');
  otherId = await user('olaf');
  customerKey = (await post<{ key: string }>('/v1/api-keys', { userId: customerId, role: 'customer' })).body.key;
  otherKey = (await post<{ key: string }>('/v1/api-keys', { userId: otherId, role: 'customer' })).body.key;
  productId = (await post<{ id: number }>('/v1/products', { name: 'Hook', sku: 'HOOK-1', price: 10, stock: 50 })).body
    .id;
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const placeOrder = (key = customerKey) =>
  post<{ id: number }>(
    '/v1/orders',
    { items: [{ productId, quantity: 1 }], shippingAddress: { zipCode: '1', line1: 'x' } },
    key,
  );

describe('webhooks', () => {
  it('delivers order.created, order.updated and order.canceled, signed per Standard Webhooks', async () => {
    const hook = await endpoint('/orders', ['order.created', 'order.updated', 'order.canceled']);
    expect(hook.secret).toMatch(/^whsec_/);
    const order = await placeOrder();
    expect(order.status).toBe(201);
    const patched = await call(`/v1/orders/${order.body.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ note: 'ring twice' }),
    });
    expect(patched.status).toBe(200);
    expect((await post(`/v1/orders/${order.body.id}/cancellation`, {})).status).toBe(201);
    await until(() => (deliveredTo('/orders').length >= 3 ? true : undefined));
    expect(typesAt('/orders')).toEqual(['order.created', 'order.updated', 'order.canceled']);
    const verifier = new Webhook(hook.secret);
    const payloads = deliveredTo('/orders').map((r) => verifier.verify(r.body, r.headers as Record<string, string>));
    expect(payloads[1]).toMatchObject({ data: { changes: ['note'], object: { note: 'ring twice' } } });
    expect(payloads[2]).toMatchObject({
      data: { object: { id: order.body.id, status: 'CANCELED', amountDetail: { total: 10 } } },
    });
    expect(() =>
      new Webhook(`whsec_${Buffer.from('wrong').toString('base64')}`).verify(
        deliveredTo('/orders')[0]?.body as string,
        deliveredTo('/orders')[0]?.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('retries after a 500 with the same webhook-id, logs the attempts, and a 410 disables the endpoint', async () => {
    answers.set('/flaky', [500, 500]);
    const flaky = await endpoint('/flaky', ['order.created']);
    await placeOrder();
    await until(() => (deliveredTo('/flaky').length >= 3 ? true : undefined));
    expect(new Set(deliveredTo('/flaky').map((r) => r.headers['webhook-id'])).size).toBe(1);
    // The receiver sees the third attempt before the server has recorded its answer.
    const log = await until(async () => {
      const read = await call<{ items: Array<{ status: number; error: string | null }> }>(
        `/v1/webhook-endpoints/${flaky.id}/deliveries`,
      );
      return read.body.items.length >= 3 ? read : undefined;
    });
    expect(log.body.items.map((a) => a.status)).toEqual([200, 500, 500]);

    answers.set('/gone', [410]);
    const gone = await endpoint('/gone', ['order.created']);
    await placeOrder();
    const disabled = await until(async () => {
      const read = await call<{ disabled: boolean; disabledReason: string }>(`/v1/webhook-endpoints/${gone.id}`);
      return read.body.disabled ? read.body : undefined;
    });
    expect(disabled.disabledReason).toBe('gone');
    const notice = await call<{ items: Array<{ data: { object: { id: number } } }> }>(
      '/v1/events?type=webhook_endpoint.disabled',
    );
    expect(notice.body.items[0]?.data.object.id).toBe(gone.id);
  });

  it('refuses a URL that is not http(s), and unknown event types', async () => {
    expect((await post('/v1/webhook-endpoints', { url: 'ftp://x.example', events: ['order.created'] })).status).toBe(
      400,
    );
    expect((await post('/v1/webhook-endpoints', { url: `${receiverUrl}/x`, events: ['order.shipped'] })).status).toBe(
      400,
    );
  });

  it('gives a customer only its own orders, and no stock events', async () => {
    const own = await endpoint('/carla', ['order.created'], customerKey);
    expect(
      (await post('/v1/webhook-endpoints', { url: `${receiverUrl}/s`, events: ['stock.changed'] }, customerKey)).status,
    ).toBe(403);
    const before = deliveredTo('/carla').length;
    await placeOrder(otherKey);
    const mine = await placeOrder();
    await until(() => (deliveredTo('/carla').length > before ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const orderIds = deliveredTo('/carla').map((r) => JSON.parse(r.body).data.object.userId);
    expect(new Set(orderIds)).toEqual(new Set([customerId]));
    expect(mine.status).toBe(201);
    expect((await call(`/v1/webhook-endpoints/${own.id}`, { key: otherKey })).status).toBe(404);
  });

  it('registers an endpoint for order events only with a key that may read orders', async () => {
    const narrow = (
      await post<{ key: string }>('/v1/api-keys', { userId: customerId, role: 'customer', scopes: ['webhooks:write'] })
    ).body.key;
    const refused = await post<{ code: string; requiredScope: string }>(
      '/v1/webhook-endpoints',
      { url: `${receiverUrl}/narrow`, events: ['order.updated'] },
      narrow,
    );
    expect([refused.status, refused.body.code, refused.body.requiredScope]).toEqual([
      403,
      'INSUFFICIENT_SCOPE',
      'orders:read',
    ]);
  });

  it('refuses one owner the same URL twice and an endpoint past the cap; another owner may share the URL', async () => {
    const url = `${receiverUrl}/shared`;
    const first = await post('/v1/webhook-endpoints', { url, events: ['order.created'] }, otherKey);
    expect(first.status).toBe(201);
    const twice = await post<{ code: string }>('/v1/webhook-endpoints', { url, events: ['order.updated'] }, otherKey);
    expect([twice.status, twice.body.code]).toEqual([409, 'WEBHOOK_URL_TAKEN']);
    const other = await post<{ id: number }>(
      '/v1/webhook-endpoints',
      { url: `${url}-2`, events: ['order.created'] },
      otherKey,
    );
    const moved = await call<{ code: string }>(`/v1/webhook-endpoints/${other.body.id}`, {
      key: otherKey,
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ url }),
    });
    expect([moved.status, moved.body.code]).toEqual([409, 'WEBHOOK_URL_TAKEN']);
    expect((await post('/v1/webhook-endpoints', { url, events: ['order.created'] }, customerKey)).status).toBe(201);

    // WEBHOOK_MAX_ENDPOINTS is 10 by default: olaf holds 2, 8 more fit, the 11th is refused.
    for (let index = 0; index < 8; index++) {
      const created = await post(
        '/v1/webhook-endpoints',
        { url: `${url}/${index}`, events: ['order.created'] },
        otherKey,
      );
      expect(created.status).toBe(201);
    }
    const past = await post<{ code: string }>(
      '/v1/webhook-endpoints',
      { url: `${url}/11`, events: ['order.created'] },
      otherKey,
    );
    expect([past.status, past.body.code]).toEqual([409, 'WEBHOOK_ENDPOINT_LIMIT']);
  });

  it('lets an admin lift one owner’s cap, and only an admin; null returns it to the default', async () => {
    // olaf holds 10 endpoints, the default cap (the test before).
    const limitsPath = `/v1/users/${otherId}/webhook-limits`;
    const put = (body: unknown, key = ADMIN_KEY) =>
      call<Record<string, unknown>>(limitsPath, { method: 'PUT', body: JSON.stringify(body), key });
    expect((await call(limitsPath)).body).toEqual({ userId: otherId, endpoints: null, deliveriesPerMinute: null });
    expect((await call<{ code: string }>(limitsPath, { key: otherKey })).status).toBe(403);
    expect((await put({ endpoints: 20, deliveriesPerMinute: null }, otherKey)).status).toBe(403);
    const lifted = await put({ endpoints: 11, deliveriesPerMinute: 1200 });
    expect([lifted.status, lifted.body]).toEqual([200, { userId: otherId, endpoints: 11, deliveriesPerMinute: 1200 }]);
    const register = (n: number) =>
      post<{ code: string }>(
        '/v1/webhook-endpoints',
        { url: `${receiverUrl}/lifted/${n}`, events: ['order.created'] },
        otherKey,
      );
    expect((await register(1)).status).toBe(201);
    const past = await register(2);
    expect([past.status, past.body.code]).toEqual([409, 'WEBHOOK_ENDPOINT_LIMIT']);
    expect((await put({ endpoints: null, deliveriesPerMinute: null })).body).toEqual({
      userId: otherId,
      endpoints: null,
      deliveriesPerMinute: null,
    });
    expect((await call(`/v1/users/999999/webhook-limits`)).status).toBe(404);
  });

  it('stops giving an endpoint events once the key that registered it is revoked', async () => {
    const issued = (await post<{ id: number; key: string }>('/v1/api-keys', { userId: customerId, role: 'customer' }))
      .body;
    await endpoint('/revoked', ['order.created'], issued.key);
    await placeOrder();
    await until(() => (deliveredTo('/revoked').length > 0 ? true : undefined));
    expect((await call(`/v1/api-keys/${issued.id}`, { method: 'DELETE' })).status).toBe(204);
    const placed = await placeOrder();
    expect(placed.status).toBe(201);
    // Another endpoint of the same customer, registered with a working key, gets the event: it was written.
    await until(() =>
      deliveredTo('/carla').some((r) => JSON.parse(r.body).data.object.id === placed.body.id) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveredTo('/revoked').map((r) => JSON.parse(r.body).data.object.id)).not.toContain(placed.body.id);
  });

  it('redelivers an event on request, with the same webhook-id', async () => {
    const hook = await endpoint('/again', ['order.created']);
    await placeOrder();
    const first = await until(() => deliveredTo('/again')[0]);
    const eventId = first.headers['webhook-id'] as string;
    expect((await post(`/v1/webhook-endpoints/${hook.id}/redeliveries`, { eventId })).status).toBe(202);
    await until(() => (deliveredTo('/again').length >= 2 ? true : undefined));
    expect(deliveredTo('/again')[1]?.headers['webhook-id']).toBe(eventId);
    expect(
      (await post(`/v1/webhook-endpoints/${hook.id}/redeliveries`, { eventId: `evt_${'0'.repeat(26)}` })).status,
    ).toBe(404);
  });

  it('lists the events a caller may see, paged and filtered', async () => {
    const mine = await call<{ items: Array<{ type: string; data: { object: { userId?: number } } }> }>(
      '/v1/events?type=order.created,order.canceled&size=100',
      { key: customerKey },
    );
    expect(mine.body.items.length).toBeGreaterThan(0);
    expect(mine.body.items.every((e) => e.data.object.userId === customerId)).toBe(true);
    const page = await call<{ items: Array<{ id: string; createdAt: string }>; nextCursor?: string }>(
      '/v1/events?size=2',
    );
    expect(page.body.items).toHaveLength(2);
    const next = await call<{ items: Array<{ id: string }> }>(`/v1/events?size=2&cursor=${page.body.nextCursor}`);
    expect(next.body.items[0]?.id).not.toBe(page.body.items[1]?.id);
    const stock = await call<{ items: unknown[] }>('/v1/events?type=stock.changed', { key: customerKey });
    expect(stock.body.items).toEqual([]);
    const later = await call<{ items: unknown[] }>(
      `/v1/events?createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.body.items).toEqual([]);
  });
});
