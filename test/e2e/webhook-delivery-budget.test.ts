/**
 * An endpoint owner's delivery budget (WEBHOOK_DELIVERIES_PER_MINUTE) on the real server: a receiver on
 * loopback gets as many deliveries as the budget holds, the rest wait untried (deferred, not failed: the
 * delivery log shows no attempt of them), and /metrics counts the deferrals. Every REST answer is checked
 * against contracts/openapi.yaml.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';
import { until } from '../support/until.js';

const ADMIN_KEY = 'delivery-budget-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

let server: RunningServer;
let receiver: Server;
const received: Array<{ path: string; id: string }> = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '/', id: JSON.parse(body).id as string });
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    SEED_DEMO: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_POLL_MS: '200',
    WEBHOOK_DELIVERIES_PER_MINUTE: '2',
  });
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const post = async (path: string, body: unknown) => {
  const answer = await checkedFetch(server.httpUrl, path, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(body),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: number };
};

describe('the delivery budget of an endpoint owner', () => {
  it('delivers what the budget holds and defers the rest, untried and counted; an admin lifts it for one owner', async () => {
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const endpoint = await post('/v1/webhook-endpoints', { url: `${base}/admin`, events: ['order.created'] });
    const user = await post('/v1/users', {
      name: 'Budd',
      email: 'budd@example.com',
      address: { zipCode: '1', line1: 'x' },
    });
    const key = (await post('/v1/api-keys', { userId: user.id, role: 'customer' })) as unknown as { key: string };
    // The customer's own endpoint, with a budget of 3 an admin set for it (the server's is 2).
    const limits = await checkedFetch(server.httpUrl, `/v1/users/${user.id}/webhook-limits`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ endpoints: null, deliveriesPerMinute: 3 }),
    });
    expect(limits.status).toBe(200);
    const own = await checkedFetch(server.httpUrl, '/v1/webhook-endpoints', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${base}/customer`, events: ['order.created'] }),
    });
    expect(own.status).toBe(201);
    const product = await post('/v1/products', { name: 'Budget Bean', sku: 'BUDGET-1', price: 10, stock: 10 });
    for (let n = 0; n < 4; n++) {
      await post('/v1/orders', { userId: user.id, items: [{ productId: product.id, quantity: 1 }] });
    }
    const to = (path: string) => received.filter((delivery) => delivery.path === path);
    await until(() => (to('/admin').length >= 2 && to('/customer').length >= 3 ? true : undefined), 5_000);
    // Several polls later, still 2 and 3: the others wait for their owner's budget (a point every 30 s, 20 s).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect([to('/admin').length, to('/customer').length]).toEqual([2, 3]);
    const log = await checkedFetch(server.httpUrl, `/v1/webhook-endpoints/${endpoint.id}/deliveries`, {
      headers: auth,
    });
    expect(log.status).toBe(200);
    expect((log.body as { items: unknown[] }).items).toHaveLength(2);
    const metrics = await (await fetch(`${server.httpUrl}/metrics`, { headers: auth })).text();
    const deferred = Number(/^webhook_deliveries_deferred_total (\d+)$/m.exec(metrics)?.[1]);
    expect(deferred).toBeGreaterThanOrEqual(3);
  });
});
