import { Hono } from 'hono';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeprecationPolicy } from '../../src/core/lifecycle/deprecation-policy.js';
import { docsRoutes } from '../../src/http/docs-routes.js';
import { requestIdAndEdgeHeaders } from '../../src/http/edge-headers.js';
import { problemOnError } from '../../src/http/problem.js';
import { versionMounts } from '../../src/http/version-mounts.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { readRestContract } from '../../src/rest/contract.js';
import { createRestApp } from '../../src/rest/create-rest-app.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { makeAdmin, recordingUsage } from '../support/fixtures.js';

// The REST signals of the deprecation registry, on a fixture contract that deprecates an operation
// (listProducts), a query parameter (listOrders hasCoupon) and a body member (ProductCreate.imageUrl).
const fixture = deprecationFixture();
const { recorder, events } = recordingUsage();
const metrics = createMetrics();
let database: TestDatabase;
let app: Hono;
let adminKey: string;
let adminKeyId: number;

beforeAll(async () => {
  database = await openTestDatabase();
  const core = await testCore(database.store);
  const admin = await makeAdmin(database.store);
  const issued = await core.apiKeys.issue(admin, { userId: admin.userId, role: 'admin' });
  adminKey = issued.secret;
  adminKeyId = issued.apiKey.id;
  app = new Hono();
  app.use('*', requestIdAndEdgeHeaders());
  const onError = problemOnError(pino({ level: 'silent' }));
  app.onError(onError);
  app.route('/docs', await docsRoutes(fixture.registry, undefined, versionMounts({ paths: { '/v1/orders': {} } })));
  app.route(
    '/v1',
    createRestApp({
      contract: await readRestContract(fixture.root),
      core,
      registry: fixture.registry,
      policy: createDeprecationPolicy({
        brownouts: core.brownouts,
        recorder,
        onCount: ({ item, kind }) => metrics.deprecatedUsage.inc({ item: item.id, kind }),
      }),
      onError,
    }),
  );
});
afterAll(async () => {
  await database?.close();
  fixture.remove();
});

const auth = () => ({ authorization: `Bearer ${adminKey}` });

describe('REST deprecation signals, read from the registry', () => {
  it('marks a deprecated operation with Deprecation (RFC 9745), Sunset and a Link that resolves', async () => {
    const response = await app.request('/v1/products', { headers: { 'user-agent': 'shop-web/3.2.1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 10, 1) / 1000}`);
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    const link = /^<([^>]+)>; rel="deprecation"/.exec(response.headers.get('link') ?? '')?.[1];
    expect(link).toBe('/docs/deprecations#rest.listProducts');
    const [page, anchor] = (link as string).split('#') as [string, string];
    const html = await (await app.request(page)).text();
    expect(html).toContain(`<section id="${anchor}">`);
    expect(html).toMatch(/rest\.listProducts[\s\S]*?sunset <time datetime="2027-06-30">/);
  });

  it('marks an error answer of a deprecated operation too, when the handler refuses it', async () => {
    // A cursor that does not decode is refused by the core inside the handler, after the deprecation step.
    const refused = await app.request('/v1/products?cursor=not-a-cursor');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('INVALID_CURSOR');
    expect(refused.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 10, 1) / 1000}`);
    expect(refused.headers.get('link')).toContain('/docs/deprecations#rest.listProducts>');
  });

  it('marks a request that sends a deprecated parameter, and only that request', async () => {
    const used = await app.request('/v1/orders?hasCoupon=true', { headers: auth() });
    expect(used.status).toBe(200);
    // A caller with a key is also pointed at its own usage.
    expect(used.headers.get('link')).toBe(
      '</docs/deprecations#rest.listOrders.query.hasCoupon>; rel="deprecation"; type="text/html", ' +
        `</v1/api-keys/${adminKeyId}/deprecations>; rel="related"; type="application/json"`,
    );
    const unused = await app.request('/v1/orders', { headers: auth() });
    expect(unused.headers.get('deprecation')).toBeNull();
  });

  it('marks a request that sends a deprecated body member, and not one that leaves it out', async () => {
    const post = (body: object) =>
      app.request('/v1/products', {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const sent = await post({ name: 'Mug', sku: 'MUG-1', price: 3, imageUrl: 'https://img.example.com/mug.png' });
    expect(sent.status).toBe(201);
    expect(sent.headers.get('link')).toContain('#rest.ProductCreate.imageUrl>');
    const left = await post({ name: 'Cup', sku: 'CUP-1', price: 3 });
    expect(left.headers.get('deprecation')).toBeNull();
  });

  it('marks a 2xx answer that carries a deprecated response property, and not an error answer', async () => {
    const rated = await app.request('/v1/products/1/rating');
    expect(rated.status).toBe(200);
    expect(rated.headers.get('link')).toBe(
      '</docs/deprecations#rest.ProductRating.count>; rel="deprecation"; type="text/html"',
    );
    const missing = await app.request('/v1/products/999/rating');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('deprecation')).toBeNull();
  });

  it('counts watched Order.amount per order read, as a replacement use with include=amountDetail, with no header', async () => {
    events.length = 0;
    const plain = await app.request('/v1/orders', { headers: { ...auth(), 'user-agent': 'shop-ios/1.0.0' } });
    const detailed = await app.request('/v1/orders?include=amountDetail', { headers: auth() });
    expect(plain.headers.get('deprecation')).toBeNull();
    expect(detailed.headers.get('deprecation')).toBeNull();
    const amount = events.filter((event) => event.item === 'rest.Order.amount');
    expect(amount.map((event) => [event.client, event.kind])).toEqual([
      ['shop-ios/1.0.0', 'use'],
      ['unknown', 'replacement'],
    ]);
    expect(await metrics.registry.metrics()).toMatch(
      /deprecated_usage_total\{item="rest\.Order\.amount",kind="replacement"\} 1/,
    );
  });
});
