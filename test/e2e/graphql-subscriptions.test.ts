/**
 * `Subscription.orderUpdated` over Server-Sent Events on the real server, read by the `graphql-sse`
 * client: a change made through REST arrives as an event, a customer never sees another customer's
 * order, the per-key bound and the drain complete or refuse cleanly.
 */
import { type Client, createClient, type ExecutionResult } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { contractClient } from '../support/client.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'subscriptions-admin-key-0123456789';
const FOLLOW = 'subscription ($id: ID) { orderUpdated(id: $id) { id type changes order { id note status } } }';

let server: RunningServer;
let closed = false;
let customerKey: string;
let otherKey: string;
let orderId: number;
let otherOrderId: number;

/** A `graphql-sse` client (distinct connections mode) with the key. */
const sseClient = (key: string): Client =>
  createClient({ url: `${server.httpUrl}/graphql`, headers: { authorization: `Bearer ${key}` }, retryAttempts: 0 });

/**
 * Subscribes and collects results until `count` arrived or the server completes the stream. `open` settles
 * once the server has answered the subscription's request: it registers the subscription (its place in the
 * event feed and its count against the key's bound) before it answers.
 */
function follow(client: Client, variables: Record<string, unknown>, count = Number.POSITIVE_INFINITY, query = FOLLOW) {
  const results: ExecutionResult<Record<string, any>, unknown>[] = [];
  let unsubscribe = () => {};
  let opened = () => {};
  const open = new Promise<void>((resolve) => (opened = resolve));
  const done = new Promise<void>((resolve, reject) => {
    unsubscribe = client.subscribe(
      { query, variables },
      {
        next: (result) => {
          results.push(result as never);
          if (results.length >= count) resolve();
        },
        error: reject,
        complete: resolve,
      },
      { connected: () => opened() },
    );
  });
  return { results, done, open, unsubscribe: () => unsubscribe() };
}

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false', GRAPHQL_SUBSCRIPTIONS_PER_KEY: '2' });
  const admin = contractClient(server.httpUrl, ADMIN_KEY);
  const productId = (await admin.POST('/v1/products', { body: { name: 'Kettle', sku: 'SSE-1', price: 40, stock: 50 } }))
    .data?.id as number;
  const customer = async (name: string) => {
    const address = { zipCode: '1', line1: 'Main St' };
    const user = await admin.POST('/v1/users', { body: { name, email: `${name}@example.com`, address } });
    const userId = user.data?.id as number;
    const key = (await admin.POST('/v1/api-keys', { body: { userId, role: 'customer' } })).data?.key as string;
    const order = await admin.POST('/v1/orders', { body: { userId, items: [{ productId, quantity: 1 }] } });
    return { key, orderId: order.data?.id as number };
  };
  ({ key: customerKey, orderId } = await customer('ada'));
  ({ key: otherKey, orderId: otherOrderId } = await customer('bob'));
});
afterAll(async () => {
  if (!closed) await server?.close();
});

describe('orderUpdated over SSE', () => {
  it('delivers a change of the order made through REST', async () => {
    const client = sseClient(customerKey);
    const own = follow(client, { id: String(orderId) }, 1);
    const all = follow(client, {}, 1);
    await Promise.all([own.open, all.open]);
    const customer = contractClient(server.httpUrl, otherKey);
    await customer.PATCH('/v1/orders/{orderId}', {
      params: { path: { orderId: otherOrderId } },
      body: { note: 'theirs' },
    });
    const patched = contractClient(server.httpUrl, customerKey);
    await patched.PATCH('/v1/orders/{orderId}', { params: { path: { orderId } }, body: { note: 'ring twice' } });
    await Promise.all([own.done, all.done]);
    for (const stream of [own, all]) {
      expect(stream.results[0]?.data?.orderUpdated).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: 'order.updated',
        changes: ['note'],
        order: { id: String(orderId), note: 'ring twice' },
      });
    }
    own.unsubscribe();
    all.unsubscribe();
    client.dispose();
  });

  it('refuses another customer’s order and a key over its bound', async () => {
    const client = sseClient(customerKey);
    const foreign = follow(client, { id: String(otherOrderId) });
    await foreign.done;
    expect(foreign.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'ORDER_NOT_FOUND' } });
    // The id is read however it is written, a literal or a variable of any name.
    for (const [query, variables] of [
      [`subscription { orderUpdated(id: "${otherOrderId}") { type } }`, {}],
      ['subscription ($order: ID) { orderUpdated(id: $order) { type } }', { order: String(otherOrderId) }],
    ] as const) {
      const written = follow(client, variables, Number.POSITIVE_INFINITY, query);
      await written.done;
      expect(written.results[0]?.errors?.[0], query).toMatchObject({ extensions: { code: 'ORDER_NOT_FOUND' } });
    }

    const open = [follow(client, {}), follow(client, {})];
    await Promise.all(open.map((stream) => stream.open));
    const third = follow(client, {});
    await third.done;
    expect(third.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'SUBSCRIPTION_LIMIT' } });
    for (const stream of open) stream.unsubscribe();
    client.dispose();
  });

  it('holds a key’s bound across its rotation: the new key shares the old one’s open subscriptions', async () => {
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    const userId = (await contractClient(server.httpUrl, customerKey).GET('/v1/users/me')).data?.id as number;
    const issued = (await admin.POST('/v1/api-keys', { body: { userId, role: 'customer' } })).data;
    const oldClient = sseClient(issued?.key as string);
    const open = [follow(oldClient, {}), follow(oldClient, {})];
    await Promise.all(open.map((stream) => stream.open));
    const rotated = await admin.POST('/v1/api-keys/{apiKeyId}/rotation', {
      params: { path: { apiKeyId: issued?.id as number } },
      body: {},
    });
    expect(rotated.response.status).toBe(201);
    const newClient = sseClient(rotated.data?.key as string);
    const refused = follow(newClient, {});
    await Promise.race([refused.done, new Promise((resolve) => setTimeout(resolve, 2000))]);
    refused.unsubscribe();
    expect(refused.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'SUBSCRIPTION_LIMIT' } });
    // A slot the old key gives back is the new key's to take.
    open[0]?.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const taken = follow(newClient, {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taken.results).toEqual([]);
    taken.unsubscribe();
    open[1]?.unsubscribe();
    oldClient.dispose();
    newClient.dispose();
  });

  it('ends a stream with UNAUTHENTICATED within a second of its key’s revocation, delivering nothing after it', async () => {
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    const userId = (await contractClient(server.httpUrl, customerKey).GET('/v1/users/me')).data?.id as number;
    const issued = (await admin.POST('/v1/api-keys', { body: { userId, role: 'customer' } })).data;
    const client = sseClient(issued?.key as string);
    const open = follow(client, { id: String(orderId) });
    await open.open;
    const revoked = await admin.DELETE('/v1/api-keys/{apiKeyId}', {
      params: { path: { apiKeyId: issued?.id as number } },
    });
    expect(revoked.response.ok).toBe(true);
    const revokedAt = Date.now();
    // A change after the revocation: the stream must not carry the order's note to the revoked key.
    await contractClient(server.httpUrl, customerKey).PATCH('/v1/orders/{orderId}', {
      params: { path: { orderId } },
      body: { note: 'after the revocation' },
    });
    await open.done;
    expect(Date.now() - revokedAt).toBeLessThan(1500);
    expect(open.results).toHaveLength(1);
    expect(open.results[0]?.data ?? null).toBeNull();
    expect(open.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(JSON.stringify(open.results)).not.toContain('after the revocation');
    client.dispose();
  });

  it('ends a stream with UNAUTHENTICATED when its key expires, though no event came', async () => {
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    const userId = (await contractClient(server.httpUrl, customerKey).GET('/v1/users/me')).data?.id as number;
    const expiresAt = new Date(Date.now() + 2000);
    const issued = (
      await admin.POST('/v1/api-keys', { body: { userId, role: 'customer', expiresAt: expiresAt.toISOString() } })
    ).data;
    const client = sseClient(issued?.key as string);
    const open = follow(client, { id: String(orderId) });
    await open.done;
    const late = Date.now() - expiresAt.getTime();
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1500);
    expect(open.results).toHaveLength(1);
    expect(open.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    client.dispose();
  });

  it('completes open subscriptions when the server drains', async () => {
    const client = sseClient(otherKey);
    const open = follow(client, { id: String(otherOrderId) });
    await open.open;
    const started = Date.now();
    closed = true;
    const closing = server.close();
    await open.done;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(open.results).toEqual([]);
    await closing;
    client.dispose();
  });
});
