import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type * as grpc from '@grpc/grpc-js';
import { createClient as createGraphqlClient } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { contractClient } from '../support/client.js';
import { serverDatabase, testDatabaseUrl } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { grpcClient } from '../support/grpc-client.js';
import { instancesOf } from '../support/server.js';

// The retirement scenario of issue "Deprecation you can act on": three clients of orders over REST and
// GraphQL (shop-web and shop-ios read `amount`, partner-x is on `amountDetail`) and one gRPC caller of a
// deprecated proto field, spread over two instances (PostgreSQL; PGlite is one process per directory, so
// there the calls go to one instance), then a restart: the report names exactly those callers with
// exactly those counts. Counts are flushed only on shutdown here (USAGE_FLUSH_MS is long), so the report
// also proves the last flush.
const ADMIN_KEY = 'scenario-admin-key-0123456789';
const fixture = deprecationFixture();
const database = serverDatabase('scenario');
const databaseEnv = database.env;
const instances = instancesOf({
  projectRoot: fixture.root,
  database,
  adminKey: ADMIN_KEY,
  env: { USAGE_FLUSH_MS: '600000' },
});
const { start, stop, running } = instances;

interface Client {
  name: string;
  userAgent: string;
  key: string;
  apiKeyId: number;
  email: string;
  orderId: number;
}

const clients: Record<'web' | 'ios' | 'partner', Client> = {} as never;
let first: RunningServer;
let second: RunningServer;
let sku: string;

beforeAll(async () => {
  first = await start();
  second = testDatabaseUrl ? await start() : first;
  const { core } = first;
  const admin: Caller = await core.apiKeys.authenticate(ADMIN_KEY);
  const product = (
    await core.products.create(admin, { name: 'Beans', sku: 'BEAN-SCENARIO', price: minor(1200), stock: 50 })
  ).result;
  sku = product.sku;
  const specs = [
    ['web', 'Ann Web', 'shop-web/3.2.1'],
    ['ios', 'Bo Ios', 'shop-ios/1.0.0'],
    ['partner', 'Cy Partner', 'partner-x/2.0.0'],
  ] as const;
  for (const [id, name, userAgent] of specs) {
    const email = `${id}@clients.example.com`;
    const user = (
      await core.users.create(admin, {
        name,
        email,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer', label: `${name} integration` });
    const caller = await core.apiKeys.authenticate(issued.secret);
    const order = (await core.orders.place(caller, { items: [{ productId: product.id, quantity: 1 }] })).result;
    clients[id] = { name, userAgent, key: issued.secret, apiKeyId: issued.apiKey.id, email, orderId: order.id };
  }
});

afterAll(async () => {
  await instances.stopAll();
  await database.remove();
  fixture.remove();
});

function rest(server: RunningServer, client: Client) {
  const api = contractClient(server.httpUrl, client.key);
  const headers = { 'user-agent': client.userAgent };
  return {
    list: (include?: 'amountDetail') =>
      api.GET('/v1/orders', { params: { query: include ? { include: [include] } : {} }, headers }),
    get: (include?: 'amountDetail') =>
      api.GET('/v1/orders/{orderId}', {
        params: { path: { orderId: client.orderId }, query: include ? { include: [include] } : {} },
        headers,
      }),
  };
}

/** An independent GraphQL client (graphql-http's), returning the whole result with its extensions. */
function graphql(server: RunningServer, client: Client | undefined, query: string) {
  const graphqlClient = createGraphqlClient({
    url: `${server.httpUrl}/graphql`,
    headers: {
      ...(client ? { authorization: `Bearer ${client.key}`, 'user-agent': client.userAgent } : {}),
    },
  });
  return new Promise<{ data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> }>(
    (resolve, reject) => {
      let result: { data?: unknown; extensions?: Record<string, unknown> } = {};
      graphqlClient.subscribe(
        { query },
        { next: (value) => (result = value as typeof result), error: reject, complete: () => resolve(result) },
      );
    },
  );
}

/** AdjustStock through @grpc/grpc-js with the fixture proto, returning the response headers. */
async function adjustStockWithReason(server: RunningServer): Promise<grpc.Metadata> {
  const client = grpcClient({
    address: server.grpcUrl,
    protoRoot: path.join(fixture.root, 'contracts'),
    userAgent: 'stock-sync/1.4.0',
  });
  try {
    const { error, headers } = await client.call('AdjustStock', { sku, delta: 5, reason: 'goods received' });
    if (error) throw error;
    return headers as grpc.Metadata;
  } finally {
    client.close();
  }
}

describe('a retirement, measured', () => {
  it('signals each protocol on the wire, counts every caller, and reports them exactly after a restart', async () => {
    const { web, ios, partner } = clients;
    // REST: two reads of amount by shop-web, one by shop-ios, two on amountDetail by partner-x.
    expect((await rest(first, web).list()).response.status).toBe(200);
    expect((await rest(second, web).list()).response.status).toBe(200);
    expect((await rest(second, ios).get()).response.status).toBe(200);
    const moved = await rest(first, partner).list('amountDetail');
    expect(moved.data?.items[0]?.amountDetail).toBeDefined();
    expect(moved.response.headers.get('deprecation')).toBeNull();
    expect((await rest(second, partner).get('amountDetail')).response.status).toBe(200);

    // GraphQL: shop-web once and shop-ios twice select amount; partner-x selects amountDetail.
    const webResult = await graphql(second, web, '{ orders(first: 5) { id amount } }');
    expect(webResult.extensions?.deprecations).toBeUndefined();
    await graphql(first, ios, '{ orders(first: 5) { id amount } }');
    await graphql(second, ios, '{ orders(first: 5) { id amount } }');
    await graphql(first, partner, '{ orders(first: 5) { id amountDetail { total } } }');

    // The deprecated signals, each read by an independent client.
    const listed = await fetch(`${first.httpUrl}/v1/products`, { headers: { 'user-agent': 'catalog-bot/0.9' } });
    expect(listed.headers.get('deprecation')).toBe('@1793491200');
    expect(listed.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    const target = /^<([^>]+)>; rel="deprecation"/.exec(listed.headers.get('link') ?? '')?.[1] as string;
    const [page, anchor] = target.split('#') as [string, string];
    expect(await (await fetch(new URL(page, first.httpUrl))).text()).toContain(`id="${anchor}"`);
    const noted = await graphql(second, ios, '{ orders(first: 1) { id note } }');
    expect(noted.extensions?.deprecations).toMatchObject([{ item: 'graphql.Order.note', sunset: '2027-06-30' }]);
    const grpcHeaders = await adjustStockWithReason(first);
    expect(grpcHeaders.get('deprecation')).toEqual(['@1793491200']);
    expect(grpcHeaders.get('sunset')).toEqual(['Wed, 30 Jun 2027 00:00:00 GMT']);

    // Shut every instance down (the last flush), and start one again on the same database.
    for (const server of [...running]) await stop(server);
    const restarted = await start();
    const admin = contractClient(restarted.httpUrl, ADMIN_KEY);

    const list = await admin.GET('/v1/deprecations', { params: { query: { size: 100 } } });
    expect(list.response.status).toBe(200);
    const entry = (id: string) => list.data?.items.find((item) => item.id === id);
    expect(entry('rest.Order.amount')).toMatchObject({
      state: 'watched',
      uses: { last1Days: 3, last7Days: 3, last30Days: 3 },
      replacementUses: { last1Days: 2 },
    });
    expect(entry('graphql.Order.amount')).toMatchObject({ uses: { last1Days: 3 }, replacementUses: { last1Days: 1 } });
    expect(entry('rest.listProducts')).toMatchObject({
      state: 'announced',
      sunset: '2027-06-30',
      uses: { last1Days: 1 },
    });
    expect(entry('grpc.inventory.v1.AdjustStockRequest.reason')?.uses.last1Days).toBe(1);

    const callers = async (item: string) => {
      const answer = await admin.GET('/v1/deprecations/{item}/callers', { params: { path: { item } } });
      expect(answer.response.status).toBe(200);
      expect(answer.data?.hasNext).toBe(false);
      return (answer.data?.items ?? []).map((caller) => ({
        apiKeyId: caller.apiKeyId,
        label: caller.label,
        email: caller.owner?.email ?? null,
        clients: caller.clients.map((client) => client.client),
        uses: caller.uses,
        replacementUses: caller.replacementUses,
        daily: caller.daily.length,
        notified: caller.notified,
      }));
    };
    const row = (client: Client, uses: number, replacementUses: number, notified = false) => ({
      apiKeyId: client.apiKeyId,
      label: `${client.name} integration`,
      email: client.email,
      clients: [client.userAgent],
      uses,
      replacementUses,
      daily: 1,
      notified,
    });
    const byKey = <T extends { apiKeyId: number }>(rows: T[]) => [...rows].sort((a, b) => a.apiKeyId - b.apiKeyId);
    expect(byKey(await callers('rest.Order.amount'))).toEqual([row(web, 2, 0), row(ios, 1, 0), row(partner, 0, 2)]);
    expect(byKey(await callers('graphql.Order.amount'))).toEqual([row(web, 1, 0), row(ios, 2, 0), row(partner, 0, 1)]);
    expect(await callers('grpc.inventory.v1.AdjustStockRequest.reason')).toEqual([
      {
        apiKeyId: 0,
        label: null,
        email: null,
        clients: ['stock-sync/1.4.0'],
        uses: 1,
        replacementUses: 0,
        daily: 1,
        notified: false,
      },
    ]);

    // Tell shop-web's owner; the report then separates notified from not-yet-notified callers.
    const notice = await admin.POST('/v1/deprecations/{item}/notices', {
      params: { path: { item: 'rest.Order.amount' } },
      body: { apiKeyIds: [web.apiKeyId], channel: 'email', note: 'amount goes away; use amountDetail' },
    });
    expect(notice.response.status).toBe(201);
    expect(notice.data).toEqual({
      items: [expect.objectContaining({ apiKeyId: web.apiKeyId, channel: 'email' })],
      hasNext: false,
    });
    expect(byKey(await callers('rest.Order.amount')).map((caller) => caller.notified)).toEqual([true, false, false]);

    // The CLI prints the same, from the database (the embedded one needs the server stopped).
    await stop(restarted);
    const { stdout } = await promisify(execFile)(
      'npx',
      [
        'tsx',
        'src/cli/usage-report.ts',
        'rest.Order.amount',
        '--csv',
        '--registry',
        path.join(fixture.root, 'generated/deprecations.json'),
      ],
      { cwd: path.resolve(import.meta.dirname, '../..'), env: { ...process.env, ...databaseEnv } },
    );
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'apiKeyId,owner,email,clients,uses,replacementUses,brownoutHits,surfacedByBrownout,firstSeen,lastSeen,notified',
    );
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',').filter((_, index) => [1, 3, 4, 5, 6, 7, 10].includes(index)))
        .sort(),
    ).toEqual([
      ['Ann Web', 'shop-web/3.2.1', '2', '0', '0', 'no', 'yes (email)'],
      ['Bo Ios', 'shop-ios/1.0.0', '1', '0', '0', 'no', 'no'],
      ['Cy Partner', 'partner-x/2.0.0', '0', '2', '0', 'no', 'no'],
    ]);
  });

  it('keeps the report to admins and answers 404 for an id the registry does not hold', async () => {
    const server = await start();
    const customer = contractClient(server.httpUrl, clients.web.key);
    expect((await customer.GET('/v1/deprecations')).response.status).toBe(403);
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    const unknown = await admin.GET('/v1/deprecations/{item}/callers', {
      params: { path: { item: 'rest.noSuchThing' } },
    });
    expect(unknown.response.status).toBe(404);
    const badKey = await admin.POST('/v1/deprecations/{item}/notices', {
      params: { path: { item: 'rest.Order.amount' } },
      body: { apiKeyIds: [999999], channel: 'email' },
    });
    expect(badKey.response.status).toBe(400);
    const published = await (await fetch(`${server.httpUrl}/contracts/deprecations`)).json();
    expect(published.items.map((item: { id: string }) => item.id)).toContain(
      'grpc.inventory.v1.AdjustStockRequest.reason',
    );
    await stop(server);
  });
});
