import path from 'node:path';
import { createClient as createGraphqlClient } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistedOperationIds } from '../../generated/graphql/persisted-operation-ids.js';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { deprecationFixture, SUNSET } from '../support/deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';

// Self-serve usage on a real server over the fixture contracts (REST `listProducts` and
// `ProductRating.count`, GraphQL `Order.note` deprecated; `Order.amount` watched on both): two customers,
// one with two keys, use different items over two days; each key's view lists exactly its own uses, the
// same over REST and GraphQL, and the signals and a brownout refusal point to it.
const ADMIN_KEY = 'self-serve-admin-key-0123456789';
const fixture = deprecationFixture();
const fixtureContract = path.join(fixture.root, 'contracts/openapi.yaml');
const database = serverDatabase('self-serve');
const DAY = 86_400_000;

let clock = new Date('2026-12-01T09:00:00.000Z');
let server: RunningServer;

interface Key {
  secret: string;
  id: number;
  userId: number;
}
const keys = {} as Record<'annWeb' | 'annIos' | 'bo', Key>;
let annOrder = 0;
let productId = 0;

beforeAll(async () => {
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    now: () => clock,
    env: { USAGE_FLUSH_MS: '600000' },
  });
  const { core } = server;
  const admin: Caller = await core.apiKeys.authenticate(ADMIN_KEY);
  const product = (
    await core.products.create(admin, { name: 'Beans', sku: 'BEAN-SELF', price: minor(1200), stock: 50 })
  ).result;
  productId = product.id;
  const userOf = async (name: string) =>
    (
      await core.users.create(admin, {
        name,
        email: `${name.toLowerCase()}@shops.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
  const ann = await userOf('Ann');
  const bo = await userOf('Bo');
  for (const [name, user] of [
    ['annWeb', ann],
    ['annIos', ann],
    ['bo', bo],
  ] as const) {
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
    keys[name] = { secret: issued.secret, id: issued.apiKey.id, userId: user.id };
  }
  const caller = await core.apiKeys.authenticate(keys.annWeb.secret);
  annOrder = (await core.orders.place(caller, { items: [{ productId, quantity: 1 }] })).result.id;
  await core.orders.place(await core.apiKeys.authenticate(keys.bo.secret), { items: [{ productId, quantity: 1 }] });
});

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
  fixture.remove();
});

/** A REST call with a key (or none), checked against the fixture's contract. */
async function rest(key: Key | string | undefined, pathname: string, init: RequestInit = {}) {
  const url = `${server.httpUrl}${pathname}`;
  const secret = typeof key === 'string' ? key : key?.secret;
  const seen = await see(
    await fetch(url, {
      ...init,
      headers: {
        'user-agent': 'shop/1.0.0',
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    }),
  );
  const body = (await expectContract(init.method ?? 'GET', url, seen, fixtureContract)) as any;
  return { status: seen.status, headers: seen.headers, body };
}

/** An independent GraphQL client (graphql-http's), returning the whole result with its extensions. */
function graphql(key: Key | string, query: string) {
  const client = createGraphqlClient({
    url: `${server.httpUrl}/graphql`,
    headers: { authorization: `Bearer ${typeof key === 'string' ? key : key.secret}`, 'user-agent': 'shop/1.0.0' },
  });
  return new Promise<{ data?: any; errors?: any[]; extensions?: Record<string, any> }>((resolve, reject) => {
    let result = {};
    client.subscribe(
      { query },
      { next: (value) => (result = value), error: reject, complete: () => resolve(result as never) },
    );
  });
}

const USAGE_QUERY = `{ me { deprecatedUsage { apiKeyId from to items {
  id protocol name status state deprecatedOn sunset reason replacement link uses replacementUses brownoutHits
  brownouts { id startsAt endsAt } daily { day uses replacementUses brownoutHits } } } } }`;

const usagePath = (key: Key) => `/v1/api-keys/${key.id}/deprecations`;
const ids = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);
const iso = (ms: number) => new Date(ms).toISOString();
const day1 = '2026-12-01';
const day2 = '2026-12-02';
const brownoutStart = Date.parse('2026-12-10T10:00:00.000Z');
const brownoutEnd = brownoutStart + 30 * 60_000;

describe('a key reads its own use of deprecated and watched items', { timeout: 60_000 }, () => {
  it('measures each key separately and points a caller with a key at its own usage', async () => {
    // Day 1. annWeb: the deprecated operation twice, Order.amount read once plainly and once as amountDetail,
    // and the deprecated GraphQL field; annIos: the deprecated response property; bo: the operation and the
    // watched GraphQL field.
    const listed = await rest(keys.annWeb, '/v1/products');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('link')).toContain(
      `</v1/api-keys/${keys.annWeb.id}/deprecations>; rel="related"; type="application/json"`,
    );
    await rest(keys.annWeb, '/v1/products');
    await rest(keys.annWeb, `/v1/orders/${annOrder}`);
    await rest(keys.annWeb, `/v1/orders/${annOrder}?include=amountDetail`);
    const noted = await graphql(keys.annWeb, '{ orders(first: 1) { id note } }');
    expect(noted.errors).toBeUndefined();
    expect(noted.extensions?.deprecatedUsage).toBe(usagePath(keys.annWeb));
    await rest(keys.annIos, `/v1/products/${productId}/rating`);
    await rest(keys.bo, '/v1/products');
    expect((await graphql(keys.bo, '{ orders(first: 1) { id amount } }')).errors).toBeUndefined();
    // Without a key there is no usage of one's own to point at.
    const anonymous = await rest(undefined, '/v1/products');
    expect(anonymous.headers.get('link')).toBe(
      '</docs/deprecations#rest.listProducts>; rel="deprecation"; type="text/html"',
    );
    await server.flushUsage();

    // Day 2: annWeb lists products once more.
    clock = new Date(clock.getTime() + DAY);
    await rest(keys.annWeb, '/v1/products');
    await server.flushUsage();
  });

  it('lists exactly the items the key used, with its daily counts, dates and replacement', async () => {
    const { status, body } = await rest(keys.annWeb, usagePath(keys.annWeb));
    expect(status).toBe(200);
    expect(body).toMatchObject({ apiKeyId: keys.annWeb.id, from: '2026-11-03', to: day2 });
    expect(ids(body)).toEqual(['graphql.Order.note', 'rest.Order.amount', 'rest.listProducts']);
    const byId = Object.fromEntries(body.items.map((item: { id: string }) => [item.id, item]));
    expect(byId['rest.listProducts']).toMatchObject({
      status: 'deprecated',
      state: 'announced',
      sunset: SUNSET,
      uses: 3,
      replacementUses: 0,
      brownoutHits: 0,
      brownouts: [],
      daily: [
        { day: day1, uses: 2, replacementUses: 0, brownoutHits: 0 },
        { day: day2, uses: 1, replacementUses: 0, brownoutHits: 0 },
      ],
    });
    expect(byId['rest.Order.amount']).toMatchObject({
      status: 'watched',
      sunset: null,
      replacement: 'amountDetail',
      uses: 1,
      replacementUses: 1,
      daily: [{ day: day1, uses: 1, replacementUses: 1, brownoutHits: 0 }],
    });
    expect(byId['graphql.Order.note']).toMatchObject({ uses: 1, daily: [{ day: day1, uses: 1 }] });
  });

  it('keeps every other key out, the same user’s other key included', async () => {
    expect(ids((await rest(keys.annIos, usagePath(keys.annIos))).body)).toEqual(['rest.ProductRating.count']);
    expect(ids((await rest(keys.bo, usagePath(keys.bo))).body)).toEqual(['graphql.Order.amount', 'rest.listProducts']);
    // The owner (Ann) may read her other key; an admin any key.
    expect(ids((await rest(keys.annWeb, usagePath(keys.annIos))).body)).toEqual(['rest.ProductRating.count']);
    const asAdmin = await rest(ADMIN_KEY, usagePath(keys.annWeb));
    expect(asAdmin.body).toEqual((await rest(keys.annWeb, usagePath(keys.annWeb))).body);
  });

  it("answers 404 for another user's key, exactly as for a key that does not exist", async () => {
    const others = await rest(keys.bo, usagePath(keys.annWeb));
    const missing = await rest(keys.bo, '/v1/api-keys/987654/deprecations');
    expect(others).toMatchObject({ status: 404, body: { code: 'API_KEY_NOT_FOUND' } });
    expect(missing).toMatchObject({ status: 404, body: { code: 'API_KEY_NOT_FOUND' } });
    expect(others.body.detail.replace(/\d+/, 'N')).toBe(missing.body.detail.replace(/\d+/, 'N'));
    expect((await rest(ADMIN_KEY, '/v1/api-keys/987654/deprecations')).status).toBe(404);
    expect((await rest(undefined, usagePath(keys.annWeb))).status).toBe(401);
  });

  it('gives the same items over REST (by id and as `me`) and GraphQL `me { deprecatedUsage }`', async () => {
    for (const key of Object.values(keys)) {
      const byId = (await rest(key, usagePath(key))).body;
      const own = await rest(key, '/v1/api-keys/me/deprecations');
      expect(own.status).toBe(200);
      expect(own.body).toEqual(byId);
      const { data, errors } = await graphql(key, USAGE_QUERY);
      expect(errors).toBeUndefined();
      // GraphQL ids are strings; everything else is member for member the REST answer.
      expect(data.me.deprecatedUsage).toEqual({
        ...byId,
        apiKeyId: String(byId.apiKeyId),
        items: byId.items.map((item: { brownouts: Array<{ id: number }> }) => ({
          ...item,
          brownouts: item.brownouts.map((window) => ({ ...window, id: String(window.id) })),
        })),
      });
    }
  });

  it('runs the committed operation `MyDeprecatedUsage` by its id, for clients in allow-list mode', async () => {
    const response = await fetch(`${server.httpUrl}/graphql?documentId=${persistedOperationIds.MyDeprecatedUsage}`, {
      headers: { authorization: `Bearer ${keys.annWeb.secret}` },
    });
    const { data } = (await response.json()) as { data: { me: { deprecatedUsage: any } } };
    const byRest = (await rest(keys.annWeb, usagePath(keys.annWeb))).body;
    expect(
      data.me.deprecatedUsage.items.map((item: { id: string; uses: number; daily: unknown[] }) => [
        item.id,
        item.uses,
        item.daily,
      ]),
    ).toEqual(
      byRest.items.map((item: { id: string; uses: number; daily: unknown[] }) => [item.id, item.uses, item.daily]),
    );
  });

  it("refuses `deprecatedUsage` on a user other than the caller's own", async () => {
    const { data, errors } = await graphql(
      ADMIN_KEY,
      `{ user(id: "${keys.bo.userId}") { name deprecatedUsage { apiKeyId } } }`,
    );
    expect(data.user).toEqual({ name: 'Bo', deprecatedUsage: null });
    expect(errors).toMatchObject([{ path: ['user', 'deprecatedUsage'], extensions: { code: 'FORBIDDEN' } }]);
  });

  it('shows scheduled brownouts, links the refusal to the usage and counts the hit', async () => {
    const scheduled = await rest(ADMIN_KEY, '/v1/brownouts', {
      method: 'POST',
      body: JSON.stringify({ item: 'rest.listProducts', startsAt: iso(brownoutStart), endsAt: iso(brownoutEnd) }),
    });
    expect(scheduled.status).toBe(201);
    const window = { id: scheduled.body.id, startsAt: iso(brownoutStart), endsAt: iso(brownoutEnd) };
    const announced = (await rest(keys.bo, usagePath(keys.bo))).body;
    expect(announced.items.find((item: { id: string }) => item.id === 'rest.listProducts').brownouts).toEqual([window]);

    clock = new Date(brownoutStart + 60_000);
    const refused = await rest(keys.bo, '/v1/products');
    expect(refused).toMatchObject({ status: 410, body: { code: 'BROWNOUT', deprecatedUsage: usagePath(keys.bo) } });
    expect(refused.headers.get('link')).toContain(`<${usagePath(keys.bo)}>; rel="related"`);
    const anonymous = await rest(undefined, '/v1/products');
    expect(anonymous.status).toBe(410);
    expect(anonymous.body.deprecatedUsage).toBeUndefined();
    await server.flushUsage();

    const after = (await rest(keys.bo, usagePath(keys.bo))).body;
    const listProducts = after.items.find((item: { id: string }) => item.id === 'rest.listProducts');
    expect(listProducts).toMatchObject({ uses: 1, brownoutHits: 1, brownouts: [window] });
    expect(listProducts.daily.at(-1)).toEqual({ day: '2026-12-10', uses: 0, replacementUses: 0, brownoutHits: 1 });
  });
});

// Every link the server hands a caller is one that caller can follow. A key scoped to
// `orders:read` that meets a deprecated item is pointed at its own usage: it may read it (`self`), as it may
// read every `Link`, `Location` and problem `type` its answers carry.
describe('links a narrowly scoped key is handed', { timeout: 60_000 }, () => {
  /** The URIs of a response's `Link` header, its `Location` and its problem's `type`, as the server wrote them. */
  const linksOf = (answer: { headers: Headers; body: any }) => [
    ...[...(answer.headers.get('link') ?? '').matchAll(/<([^>]+)>/g)].map((match) => match[1] as string),
    ...(answer.headers.get('location') ? [answer.headers.get('location') as string] : []),
    ...(typeof answer.body?.type === 'string' ? [answer.body.type as string] : []),
    ...(typeof answer.body?.deprecatedUsage === 'string' ? [answer.body.deprecatedUsage as string] : []),
  ];

  it('can follow each with the same key: no 401, no 403', async () => {
    clock = new Date('2026-12-20T09:00:00.000Z');
    const admin = await server.core.apiKeys.authenticate(ADMIN_KEY);
    const narrow = await server.core.apiKeys.issue(admin, {
      userId: keys.annWeb.userId,
      role: 'customer',
      scopes: ['orders:read'],
    });
    const key = { secret: narrow.secret, id: narrow.apiKey.id, userId: keys.annWeb.userId };
    const answers = [
      await rest(key, '/v1/products'),
      await rest(key, `/v1/orders/${annOrder}`),
      await rest(key, '/v1/orders/999999'),
      await rest(key, '/v1/users/me'),
      await rest(key, '/v1/orders?bogus=1'),
    ];
    const links = [...new Set(answers.flatMap(linksOf))];
    expect(links).toEqual(expect.arrayContaining([usagePath(key), expect.stringContaining('/problems/')]));
    for (const link of links) {
      const target = new URL(link, server.httpUrl);
      const followed = await fetch(target, { headers: { authorization: `Bearer ${key.secret}` } });
      expect([401, 403], `${link} answered ${followed.status}`).not.toContain(followed.status);
      expect(followed.status, link).toBeLessThan(400);
    }
    // Its own usage by `me` too; another key's usage still needs `keys:read`.
    expect((await rest(key, '/v1/api-keys/me/deprecations')).status).toBe(200);
    const other = await rest(key, usagePath(keys.annIos));
    expect(other).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_SCOPE', requiredScope: 'keys:read' } });
    const viaGraphql = await graphql(key.secret, '{ me { deprecatedUsage { apiKeyId } } }');
    expect(viaGraphql.data?.me ?? null).toBeNull(); // `me` needs users:read; the usage field itself is `self`
  });
});
