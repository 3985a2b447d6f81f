/**
 * Webhook deliveries as uses of deprecated items, through the real server and a real
 * receiver, over fixture contracts: where `Order.amount` and the event type `order.updated` are
 * deprecated, a customer's endpoint that accepts an order event gets the deprecation signals and makes the
 * customer's key a caller of the item (once per accepted delivery, not per attempt; its successor after a
 * rotation); where nothing an event carries is deprecated or watched, deliveries carry no signal and
 * count nothing. Every REST answer is checked against the fixture's contract.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { RunningServer } from '../../src/main.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { DEPRECATED_ON, eventDeprecationFixture, SUNSET } from '../support/event-deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';
import { until } from '../support/until.js';

const ADMIN_KEY = 'event-deprecations-admin-key-0123456789';

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback: records every delivery; answers each path's queued statuses in turn, then 200. */
async function startReceiver() {
  const received: Delivery[] = [];
  const answers = new Map<string, number[]>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const at = request.url ?? '/';
      received.push({ path: at, headers: request.headers, body });
      response.statusCode = answers.get(at)?.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    at: (where: string) => received.filter((delivery) => delivery.path === where),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

interface Key {
  secret: string;
  id: number;
  userId: number;
}

/** A fixture server, a receiver, and what the tests do through them. */
function world(kind: 'deprecated' | 'quiet') {
  const fixture = eventDeprecationFixture(kind);
  const contract = path.join(fixture.root, 'contracts/openapi.yaml');
  const database = serverDatabase(`event-deprecations-${kind}`);
  let server: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let productId = 0;

  const rest = async (secret: string, pathname: string, init: RequestInit = {}) => {
    const url = `${server.httpUrl}${pathname}`;
    const headers = { authorization: `Bearer ${secret}`, ...(init.body ? { 'content-type': 'application/json' } : {}) };
    const seen = await see(await fetch(url, { ...init, headers }));
    const body = (await expectContract(init.method ?? 'GET', url, seen, contract)) as any;
    return { status: seen.status, body };
  };
  const post = (secret: string, pathname: string, body: unknown) =>
    rest(secret, pathname, { method: 'POST', body: JSON.stringify(body) });

  return {
    fixture,
    get server() {
      return server;
    },
    get receiver() {
      return receiver;
    },
    rest,
    post,
    async start() {
      receiver = await startReceiver();
      server = await startFixtureServer({
        projectRoot: fixture.root,
        database,
        adminKey: ADMIN_KEY,
        env: {
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          WEBHOOK_RETRY_SECONDS: '0,0',
          WEBHOOK_POLL_MS: '100',
          USAGE_FLUSH_MS: '600000',
        },
      });
      const product = await post(ADMIN_KEY, '/v1/products', { name: 'Beans', sku: 'BEAN-EV', price: 12, stock: 90 });
      productId = product.body.id;
    },
    async stop() {
      await server?.close().catch(() => undefined);
      await receiver?.close();
      await database.remove();
      fixture.remove();
    },
    /** A customer with a key, issued through the API. */
    async customer(name: string): Promise<Key> {
      const address = { zipCode: '04524', line1: '1 Road', line2: null };
      const user = await post(ADMIN_KEY, '/v1/users', { name, email: `${name}@hooks.example.com`, address });
      const key = await post(ADMIN_KEY, '/v1/api-keys', { userId: user.body.id, role: 'customer' });
      return { secret: key.body.key, id: key.body.id, userId: user.body.id };
    },
    /** Registers an endpoint at the receiver's `where` with the key. */
    async endpoint(key: Key, where: string, events: string[]) {
      const created = await post(key.secret, '/v1/webhook-endpoints', { url: `${receiver.url}${where}`, events });
      expect(created.status).toBe(201);
      return created.body as { id: number; secret: string };
    },
    /** Places an order for the key's user in the core (no REST answer that would count a use itself). */
    async placeOrder(key: Key) {
      const caller: Caller = await server.core.apiKeys.authenticate(key.secret);
      return (await server.core.orders.place(caller, { items: [{ productId, quantity: 1 }] })).result;
    },
  };
}

/** The uses by each caller of an item, per client, once the server has flushed its counts. */
async function callersOf(w: ReturnType<typeof world>, item: string) {
  await w.server.flushUsage();
  const read = await w.rest(ADMIN_KEY, `/v1/deprecations/${item}/callers`);
  expect(read.status).toBe(200);
  return (read.body.items as Array<{ apiKeyId: number; uses: number; clients: Array<{ client: string }> }>).map(
    ({ apiKeyId, uses, clients }) => ({ apiKeyId, uses, clients: clients.map((c) => c.client) }),
  );
}

const deprecationOf = (day: string) => `@${Date.parse(`${day}T00:00:00Z`) / 1000}`;

describe('deliveries that carry deprecated items', { timeout: 60_000 }, () => {
  const w = world('deprecated');
  beforeAll(() => w.start());
  afterAll(() => w.stop());

  it("makes the customer's key a caller of the deprecated payload member, with the signals on the delivery", async () => {
    const ann = await w.customer('ann');
    const hook = await w.endpoint(ann, '/ann', ['order.created']);
    const order = await w.placeOrder(ann);
    const delivery = await until(() => w.receiver.at('/ann')[0]);
    expect(JSON.parse(delivery.body).data.object).toMatchObject({ id: order.id, amount: 12 });
    expect(delivery.headers.deprecation).toBe(deprecationOf(DEPRECATED_ON));
    expect(delivery.headers.sunset).toBe(new Date(`${SUNSET}T00:00:00Z`).toUTCString());
    expect(delivery.headers.link).toBe(
      `</docs/deprecations#rest.Order.amount>; rel="deprecation"; type="text/html", </v1/api-keys/${ann.id}/deprecations>; rel="related"; type="application/json"`,
    );
    // The signals do not touch what is signed.
    expect(() =>
      new Webhook(hook.secret).verify(delivery.body, delivery.headers as Record<string, string>),
    ).not.toThrow();
    const callers = await until(async () => {
      const found = await callersOf(w, 'rest.Order.amount');
      return found.length > 0 ? found : undefined;
    });
    expect(callers).toEqual([{ apiKeyId: ann.id, uses: 1, clients: ['webhooks'] }]);
    // The key sees it in its own usage too.
    const own = await w.rest(ann.secret, '/v1/api-keys/me/deprecations');
    expect(own.body.items.map((item: { id: string; uses: number }) => [item.id, item.uses])).toEqual([
      ['rest.Order.amount', 1],
    ]);
  });

  it('counts a delivery once when the receiver accepts it, not per attempt', async () => {
    const bo = await w.customer('bo');
    w.receiver.answers.set('/bo', [500, 503]);
    const hook = await w.endpoint(bo, '/bo', ['order.created']);
    await w.placeOrder(bo);
    await until(() => (w.receiver.at('/bo').length >= 3 ? true : undefined));
    // Every attempt carries the signals, the refused ones too.
    expect(w.receiver.at('/bo').map((attempt) => attempt.headers.deprecation)).toEqual(
      Array(3).fill(deprecationOf(DEPRECATED_ON)),
    );
    await until(async () => {
      const log = await w.rest(bo.secret, `/v1/webhook-endpoints/${hook.id}/deliveries`);
      return log.body.items.length === 3 ? true : undefined;
    });
    const boCalls = (await callersOf(w, 'rest.Order.amount')).filter((caller) => caller.apiKeyId === bo.id);
    expect(boCalls).toEqual([{ apiKeyId: bo.id, uses: 1, clients: ['webhooks'] }]);
  });

  it('counts a deprecated event type for the endpoint key, and signals it beside the payload member', async () => {
    const cy = await w.customer('cy');
    await w.endpoint(cy, '/cy-updates', ['order.updated']);
    const order = await w.placeOrder(cy);
    const admin = await w.server.core.apiKeys.authenticate(ADMIN_KEY);
    await w.server.core.orders.update(admin, order.id, { note: 'leave at the door' });
    const delivery = await until(() => w.receiver.at('/cy-updates')[0]);
    expect(JSON.parse(delivery.body).type).toBe('order.updated');
    expect(delivery.headers.deprecation).toBe(deprecationOf(DEPRECATED_ON));
    expect(delivery.headers.link).toContain('</docs/deprecations#rest.orderUpdatedWebhook>; rel="deprecation"');
    expect(delivery.headers.link).toContain('</docs/deprecations#rest.Order.amount>; rel="deprecation"');
    const callers = await until(async () => {
      const found = await callersOf(w, 'rest.orderUpdatedWebhook');
      return found.length > 0 ? found : undefined;
    });
    expect(callers).toEqual([{ apiKeyId: cy.id, uses: 1, clients: ['webhooks'] }]);
  });

  it('counts for the key that registered the endpoint, not for another key of its owner', async () => {
    const fay = await w.customer('fay');
    await w.endpoint(fay, '/fay', ['order.created']);
    const newer = await w.post(ADMIN_KEY, '/v1/api-keys', { userId: fay.userId, role: 'customer', label: 'ios' });
    await w.placeOrder(fay);
    await until(() => w.receiver.at('/fay')[0]);
    const calls = await until(async () => {
      const found = (await callersOf(w, 'rest.Order.amount')).filter((c) =>
        [fay.id, newer.body.id].includes(c.apiKeyId),
      );
      return found.length > 0 ? found : undefined;
    });
    expect(calls).toEqual([{ apiKeyId: fay.id, uses: 1, clients: ['webhooks'] }]);
  });

  it("counts for the successor key once the endpoint's key is rotated", async () => {
    const di = await w.customer('di');
    await w.endpoint(di, '/di', ['order.created']);
    const rotated = await w.post(di.secret, `/v1/api-keys/${di.id}/rotation`, {});
    expect(rotated.status).toBe(201);
    const successor: Key = { secret: rotated.body.key, id: rotated.body.id, userId: di.userId };
    // A key issued after the rotation is not the endpoint's: the endpoint moved with its key.
    await w.post(ADMIN_KEY, '/v1/api-keys', { userId: di.userId, role: 'customer', label: 'later' });
    await w.placeOrder(successor);
    const delivery = await until(() => w.receiver.at('/di')[0]);
    expect(delivery.headers.link).toContain(`</v1/api-keys/${successor.id}/deprecations>; rel="related"`);
    const calls = await until(async () => {
      const found = (await callersOf(w, 'rest.Order.amount')).filter((c) => [di.id, successor.id].includes(c.apiKeyId));
      return found.length > 0 ? found : undefined;
    });
    expect(calls).toEqual([{ apiKeyId: successor.id, uses: 1, clients: ['webhooks'] }]);
  });
});

describe('deliveries when nothing an event carries is deprecated or watched', { timeout: 60_000 }, () => {
  const w = world('quiet');
  beforeAll(() => w.start());
  afterAll(() => w.stop());

  it('sends no signal and records no use', async () => {
    // The registry is not empty, and holds a deprecated REST property: only no payload reaches it.
    expect(w.fixture.registry.items.map((item) => item.id)).toEqual([
      'graphql.Order.amount',
      'rest.ProductRating.count',
    ]);
    const eve = await w.customer('eve');
    await w.endpoint(eve, '/eve', ['order.created', 'order.updated']);
    const order = await w.placeOrder(eve);
    const admin = await w.server.core.apiKeys.authenticate(ADMIN_KEY);
    await w.server.core.orders.update(admin, order.id, { note: 'ring twice' });
    const deliveries = await until(() => (w.receiver.at('/eve').length >= 2 ? w.receiver.at('/eve') : undefined));
    for (const delivery of deliveries) {
      expect(Object.keys(delivery.headers).filter((name) => ['deprecation', 'sunset', 'link'].includes(name))).toEqual(
        [],
      );
    }
    await w.server.flushUsage();
    const own = await w.rest(eve.secret, '/v1/api-keys/me/deprecations');
    expect(own.status).toBe(200);
    expect(own.body.items).toEqual([]);
    const summary = await w.rest(ADMIN_KEY, '/v1/deprecations');
    expect(summary.body.items.every((item: { uses: { last30Days: number } }) => item.uses.last30Days === 0)).toBe(true);
  });
});
