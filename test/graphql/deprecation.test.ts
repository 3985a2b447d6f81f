import { readFileSync } from 'node:fs';
import path from 'node:path';
import { namesUsed } from '@order-api/contract-registry/matching';
import { buildSchema, parse } from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeprecationPolicy } from '../../src/core/lifecycle/deprecation-policy.js';
import { createGraphQL } from '../../src/graphql/create-graphql.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { makeAdmin, makeCustomer, makeProduct, recordingUsage } from '../support/fixtures.js';
import { defaultGraphQLSettings } from '../support/graphql.js';

// The GraphQL signals, on a fixture schema with `Order.note` deprecated; `Order.amount` is watched.
const fixture = deprecationFixture();
const { recorder, events } = recordingUsage();
let database: TestDatabase;
let key: string;
let run: (query: string, userAgent?: string) => Promise<{ data?: unknown; extensions?: Record<string, unknown> }>;

beforeAll(async () => {
  database = await openTestDatabase();
  const core = await testCore(database.store);
  const admin = await makeAdmin(database.store);
  const customer = await makeCustomer(core, admin);
  const product = await makeProduct(core, admin);
  await core.orders.place(customer, { items: [{ productId: product.id, quantity: 1 }] });
  key = (await core.apiKeys.issue(admin, { userId: customer.userId, role: 'customer' })).secret;
  const yoga = await createGraphQL({
    projectRoot: fixture.root,
    core,
    logger: pino({ level: 'silent' }),
    settings: defaultGraphQLSettings,
    metrics: createMetrics(),
    registry: fixture.registry,
    policy: createDeprecationPolicy({ brownouts: core.brownouts, recorder }),
    restBase: '/v1',
  });
  run = async (query, userAgent = 'shop-web/3.2.1') => {
    const response = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'user-agent': userAgent },
        body: JSON.stringify({ query }),
      },
      { clientName: userAgent },
    );
    return response.json();
  };
});
afterAll(async () => {
  await database?.close();
  fixture.remove();
});

describe('GraphQL deprecation signals', () => {
  it('list each deprecated field the operation selected in extensions.deprecations, and only then', async () => {
    expect((await run('{ orders(first: 1) { id } }')).extensions).toBeUndefined();
    const result = await run('{ orders(first: 1) { id note } }');
    expect(result.extensions?.deprecations).toEqual([
      {
        item: 'graphql.Order.note',
        name: 'Order.note',
        deprecatedOn: '2026-11-01',
        sunset: '2027-06-30',
        reason: "Use the order's items. Deprecated: 2026-11-01. Sunset: 2027-06-30.",
        link: '/docs/deprecations#graphql.Order.note',
        brownouts: [],
      },
    ]);
  });

  it('count the watched Order.amount per caller, and amountDetail as its replacement', async () => {
    events.length = 0;
    await run('{ orders(first: 1) { amount } }', 'shop-ios/1.0.0');
    await run('{ orders(first: 1) { amountDetail { total } } }', 'partner-x/2.0.0');
    expect(events.map(({ item, client, kind }) => [item, client, kind])).toEqual([
      ['graphql.Order.amount', 'shop-ios/1.0.0', 'use'],
      ['graphql.Order.amount', 'partner-x/2.0.0', 'replacement'],
    ]);
    expect(events[0]?.apiKeyId).toBeGreaterThan(0);
  });

  it('find input fields and enum values sent inline or in variables', () => {
    const schema = buildSchema(readFileSync(path.join(fixture.root, 'contracts/schema.graphql'), 'utf8'));
    const document = parse(
      'query($f: OrderFilter) { a: orders(first: 1, filter: $f) { id } b: orders(filter: { status: [PAID] }) { id } }',
    );
    const names = namesUsed(schema, document, { f: { hasCoupon: true, status: ['SHIPPED'] } });
    expect([...names].filter((name) => /^Order(Filter|Status)\./.test(name)).sort()).toEqual([
      'OrderFilter.hasCoupon',
      'OrderFilter.status',
      'OrderStatus.PAID',
      'OrderStatus.SHIPPED',
    ]);
  });
});
