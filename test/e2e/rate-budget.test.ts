import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { requires } from '../support/requires.js';
import { startTestServer } from '../support/server.js';
import { openTcpProxy } from '../support/tcp-proxy.js';

/**
 * The rate budget (docs/operating.md, "Rate budget"): one budget per caller that REST requests and GraphQL
 * operations draw from by cost, announced in RateLimit headers, 429 once spent, anonymous callers by
 * address, shared by instances through Redis and still answering when Redis is away.
 */
const ADMIN_KEY = 'rate-admin-key-0123456789abcdef';
const redisUrl = process.env.REDIS_TEST_URL;
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function start(env: Record<string, string>): Promise<RunningServer> {
  const server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    SEED_DEMO: 'false',
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_ADMIN: '100000',
    RATE_LIMIT_KEY_PREFIX: `test-rate-${randomBytes(6).toString('hex')}`,
    ...env,
  });
  servers.push(server);
  return server;
}

/** A customer key on `server`, issued by the admin. */
async function customerKey(server: RunningServer): Promise<string> {
  const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const user = await checkedFetch(server.httpUrl, '/v1/users', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'Rae', email: `rae-${randomBytes(4).toString('hex')}@example.com` }),
  });
  const key = await checkedFetch(server.httpUrl, '/v1/api-keys', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ userId: (user.body as { id: number }).id, role: 'customer' }),
  });
  return (key.body as { key: string }).key;
}

/** The points left, read from a `RateLimit` header (`"default";r=<left>;t=<seconds>`). */
function left(headers: Headers): number {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(headers.get('ratelimit') ?? '');
  expect(match, `RateLimit header: ${headers.get('ratelimit')}`).not.toBeNull();
  return Number(match?.[1]);
}

async function graphql(server: RunningServer, key: string, query: string) {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as {
      data?: unknown;
      errors?: Array<{ extensions?: { code?: string } }>;
      extensions?: {
        cost?: { requestedQueryCost: number; points: number; throttleStatus: { currentlyAvailable: number } };
      };
    },
  };
}

// 175 by the cost model, so 18 points.
const ORDERS_QUERY = '{ orders(first: 20) { id user { name } } }';

describe('one budget per key across REST and GraphQL', () => {
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    // An hour's window: the budget refills one point per 2 minutes, so none comes back mid-test.
    server = await start({ RATE_LIMIT_CUSTOMER: '30', RATE_LIMIT_WINDOW_SECONDS: '3600' });
    key = await customerKey(server);
  });

  it('charges REST reads 1 and writes 5, GraphQL by cost, and refuses both with 429 once spent', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const first = await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=30;w=3600');
    expect(left(first.headers)).toBe(29);

    const write = await checkedFetch(server.httpUrl, '/v1/orders', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 999_999, quantity: 1 }] }),
    });
    expect(write.status).toBe(400);
    expect(left(write.headers)).toBe(24);

    const query = await graphql(server, key, ORDERS_QUERY);
    expect(query.status).toBe(200);
    expect(query.body.extensions?.cost).toMatchObject({ requestedQueryCost: 175, points: 18 });
    expect(query.body.extensions?.cost?.throttleStatus.currentlyAvailable).toBe(6);
    expect(left(query.headers)).toBe(6);

    // 6 points left: a second query (18) is refused whole, and nothing ran.
    const refused = await graphql(server, key, ORDERS_QUERY);
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    for (let read = 0; read < 6; read++) {
      expect((await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth })).status).toBe(200);
    }
    const spent = await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth });
    expect(spent.status).toBe(429);
    expect(spent.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(left(spent.headers)).toBe(0);
    // One point refills every 120 s: that is when this read may come back, not when the budget is full.
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(100);
    expect(Number(spent.headers.get('retry-after'))).toBeLessThanOrEqual(120);
  });

  it('draws a rotated key and the key it replaced from one budget', async () => {
    const own = await customerKey(server);
    const auth = { authorization: `Bearer ${own}` };
    const mine = await checkedFetch(server.httpUrl, '/v1/api-keys', { headers: auth });
    const ownId = (mine.body as { items: Array<{ id: number }> }).items[0]?.id;
    expect(left(mine.headers)).toBe(29);
    const spend = await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth });
    expect(left(spend.headers)).toBe(28);
    // The customer rotates its own key (5 points): the new secret starts where the old one left off.
    const rotated = await checkedFetch(server.httpUrl, `/v1/api-keys/${ownId}/rotation`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rotated.status).toBe(201);
    expect(left(rotated.headers)).toBe(23);
    const successor = { authorization: `Bearer ${(rotated.body as { key: string }).key}` };
    const read = await checkedFetch(server.httpUrl, '/v1/users/me', { headers: successor });
    expect([read.status, left(read.headers)]).toEqual([200, 22]);
    // And the old key, still in its overlap, draws from the same budget.
    expect(left((await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth })).headers)).toBe(21);
  });

  it('keeps other callers, and what is not charged, out of it', async () => {
    const other = await customerKey(server);
    const theirs = await checkedFetch(server.httpUrl, '/v1/users/me', {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(theirs.status).toBe(200);
    expect(left(theirs.headers)).toBe(29);
    const health = await fetch(`${server.httpUrl}/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit')).toBeNull();
    expect((await fetch(`${server.httpUrl}/contracts/openapi`)).headers.get('ratelimit')).toBeNull();
  });
});

describe('a key of its own budget', () => {
  it('is set and cleared by an admin through the API-key resource', async () => {
    const server = await start({ RATE_LIMIT_CUSTOMER: '50' });
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const key = await customerKey(server);
    const me = { headers: { authorization: `Bearer ${key}` } };
    const { id } = (await checkedFetch(server.httpUrl, '/v1/users/me', me)).body as { id: number };
    const keys = await checkedFetch(server.httpUrl, '/v1/api-keys', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ userId: id, role: 'customer', rateLimit: 2 }),
    });
    expect(keys.body).toMatchObject({ rateLimit: 2 });
    const limitedKey = (keys.body as { key: string; id: number }).key;
    const limited = { headers: { authorization: `Bearer ${limitedKey}` } };
    const statuses: number[] = [];
    for (let read = 0; read < 3; read++)
      statuses.push((await checkedFetch(server.httpUrl, '/v1/users/me', limited)).status);
    expect(statuses).toEqual([200, 200, 429]);

    const keyId = (keys.body as { id: number }).id;
    const cleared = await checkedFetch(server.httpUrl, `/v1/api-keys/${keyId}`, {
      method: 'PATCH',
      headers: { ...admin, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ rateLimit: null }),
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ id: keyId, rateLimit: null });
    // Verified keys are cached for up to 5 s; then the role's default (50) applies.
    await expect
      .poll(async () => (await checkedFetch(server.httpUrl, '/v1/users/me', limited)).headers.get('ratelimit-policy'), {
        timeout: 8_000,
        interval: 500,
      })
      .toBe('"default";q=50;w=60');
    const forbidden = await checkedFetch(server.httpUrl, `/v1/api-keys/${keyId}`, {
      method: 'PATCH',
      headers: { ...me.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ rateLimit: 100000 }),
    });
    expect(forbidden.status).toBe(403);
  });
});

describe('a spent budget', () => {
  it('comes back a point at a time, as the headers say', async () => {
    // 2 points per 2 s: one point back every second.
    const server = await start({ RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_SECONDS: '2' });
    const read = () => checkedFetch(server.httpUrl, '/v1/products');
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    const spent = await read();
    expect(spent.status).toBe(429);
    expect(spent.headers.get('ratelimit')).toBe('"default";r=0;t=2');
    expect(spent.headers.get('retry-after')).toBe('1');
    await sleep(1_100);
    // A fixed window would refuse here (or, once it ended, allow both): a refilling budget allows one.
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(429);
  });
});

describe('anonymous callers', () => {
  it('are limited by their address', async () => {
    const server = await start({ RATE_LIMIT_ANONYMOUS: '3' });
    const statuses: number[] = [];
    for (let read = 0; read < 4; read++) statuses.push((await checkedFetch(server.httpUrl, '/v1/products')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // A wrong key is no way around it: it draws from the address's budget too.
    const guessed = await checkedFetch(server.httpUrl, '/v1/products', {
      headers: { authorization: 'Bearer oak_guess' },
    });
    expect(guessed.status).toBe(429);
    // A valid key has a budget of its own.
    const admin = await checkedFetch(server.httpUrl, '/v1/products', {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(admin.status).toBe(200);
  });
});

describe.runIf(requires(redisUrl, 'rate budgets shared through Redis', 'set REDIS_TEST_URL'))(
  'budgets shared through Redis',
  () => {
    it('limits a burst split across two instances as one', async () => {
      const prefix = `test-rate-${randomBytes(6).toString('hex')}`;
      const env = {
        REDIS_URL: redisUrl as string,
        RATE_LIMIT_KEY_PREFIX: prefix,
        RATE_LIMIT_ANONYMOUS: '10',
        RATE_LIMIT_WINDOW_SECONDS: '3600',
      };
      const [one, two] = [await start(env), await start(env)] as [RunningServer, RunningServer];
      await expect.poll(async () => (await (await fetch(`${one.httpUrl}/health`)).json()).degraded).toBeUndefined();
      const statuses: number[] = [];
      for (let read = 0; read < 14; read++) {
        const server = read % 2 === 0 ? one : two;
        statuses.push((await checkedFetch(server.httpUrl, '/v1/products')).status);
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    });

    it('keeps answering when Redis goes away, and says it is degraded', async () => {
      const proxy = await openTcpProxy(redisUrl as string);
      onTestFinished(() => proxy.cut());
      const server = await start({ REDIS_URL: proxy.url, RATE_LIMIT_ANONYMOUS: '1000' });
      const metrics = async () =>
        (await (await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text())
          .split('\n')
          .find((line) => line.startsWith('rate_limit_store_degraded '));
      await expect.poll(async () => (await fetch(`${server.httpUrl}/v1/products`)).status).toBe(200);
      expect(await metrics()).toBe('rate_limit_store_degraded 0');

      await proxy.cut();
      for (let read = 0; read < 5; read++) {
        const answer = await checkedFetch(server.httpUrl, '/v1/products');
        expect(answer.status).toBe(200);
        expect(left(answer.headers)).toBeGreaterThan(0);
      }
      const health = await checkedFetch(server.httpUrl, '/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', degraded: { rateLimit: expect.stringContaining('Redis') } });
      expect(await metrics()).toBe('rate_limit_store_degraded 1');
    });

    it('answers within its wait while Redis hangs, says it is degraded, and shares budgets again after', async () => {
      const proxy = await openTcpProxy(redisUrl as string);
      onTestFinished(() => proxy.cut());
      const server = await start({
        REDIS_URL: proxy.url,
        RATE_LIMIT_ANONYMOUS: '1000',
        REDIS_COMMAND_TIMEOUT_MS: '250',
        REDIS_BREAKER_MS: '1000',
      });
      const degraded = async () => (await (await fetch(`${server.httpUrl}/health`)).json()).degraded;
      await expect.poll(async () => (await fetch(`${server.httpUrl}/v1/products`)).status).toBe(200);
      expect(await degraded()).toBeUndefined();

      // Connections open, no answer: each request waits at most the command time-out, then the breaker
      // keeps the instance on its own budgets without waiting at all.
      proxy.fault({ kind: 'hang' });
      const took: number[] = [];
      for (let read = 0; read < 5; read++) {
        const started = Date.now();
        const answer = await checkedFetch(server.httpUrl, '/v1/products');
        took.push(Date.now() - started);
        expect(answer.status).toBe(200);
      }
      expect(Math.max(...took)).toBeLessThan(1500);
      expect(took.slice(1).every((ms) => ms < 200)).toBe(true);
      expect(await degraded()).toMatchObject({ rateLimit: expect.stringContaining('Redis') });

      proxy.heal();
      await expect
        .poll(
          async () => {
            await fetch(`${server.httpUrl}/v1/products`);
            return degraded();
          },
          { timeout: 10_000 },
        )
        .toBeUndefined();
    });
  },
);

describe('the headers every answer carries', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  let server: RunningServer;
  beforeAll(async () => {
    server = await start({});
  });

  it('puts the request id, CORS and (under /v1) RateLimit on answers of every kind, each once', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    const answers = {
      'REST 200': await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth }),
      'REST 404 problem': await checkedFetch(server.httpUrl, '/v1/orders/999999', { headers: auth }),
      'REST 401 problem': await checkedFetch(server.httpUrl, '/v1/orders', {
        headers: { authorization: 'Bearer nope' },
      }),
      'REST 201': await checkedFetch(server.httpUrl, '/v1/users', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Eda', email: `eda-${randomBytes(4).toString('hex')}@example.com` }),
      }),
      GraphQL: await graphql(server, ADMIN_KEY, '{ me { id } }'),
      health: await checkedFetch(server.httpUrl, '/health'),
      'unknown path': await checkedFetch(server.httpUrl, '/no-such-thing'),
    };
    for (const [kind, { status, headers }] of Object.entries(answers)) {
      expect(status, kind).toBeLessThan(500);
      expect(headers.get('x-request-id'), kind).toMatch(UUID);
      expect(headers.get('access-control-allow-origin'), kind).toBe('*');
      expect(headers.get('access-control-expose-headers'), kind).toMatch(/^ETag,Location,X-Request-Id,/);
    }
    // The admin's budget (RATE_LIMIT_ADMIN above); the wrong key is charged as anonymous, by address (300).
    const quotas = { 'REST 200': 100000, 'REST 404 problem': 100000, 'REST 201': 100000, 'REST 401 problem': 300 };
    for (const [kind, quota] of Object.entries(quotas) as Array<[keyof typeof answers, number]>) {
      expect(answers[kind].headers.get('ratelimit-policy'), kind).toBe(`"default";q=${quota};w=60`);
      expect(answers[kind].headers.get('ratelimit'), kind).toMatch(/^"default";r=\d+;t=\d+$/);
    }
    expect(answers['REST 201'].headers.get('location')).toMatch(/^\/v1\/users\/\d+$/);
    expect(answers['REST 404 problem'].body).toMatchObject({
      requestId: answers['REST 404 problem'].headers.get('x-request-id'),
    });
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const sent = async (id: string) =>
      (await fetch(`${server.httpUrl}/v1/products`, { headers: { 'x-request-id': id } })).headers.get('x-request-id');
    expect(await sent('trace-abc_123=')).toBe('trace-abc_123=');
    expect(await sent('has spaces')).toMatch(UUID);
    expect(await sent('x'.repeat(256))).toMatch(UUID);
  });
});
