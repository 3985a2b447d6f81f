import path from 'node:path';
import { createClient as createConnectClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { createClient as createGraphqlClient } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { amountMigrationFixture } from '../support/amount-migration-fixture.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { startFixtureServer } from '../support/server.js';

// The specification's own example of a change (spec §9.2 rule 2), walked as an API owner runs it once
// `Order.amount` is deprecated with `amountDetail` named as its replacement: three callers of orders over
// REST and GraphQL — `reader` reads `amount`, `mover` asks for `amountDetail`, `trimmer` lists its fields
// without `amount` — are measured, told, and browned out; a gRPC caller of the deprecated reply field
// `Stock.reserved` is measured by its key. Only the reader is a user: only it gets the signals, only its
// requests count as brownout hits, and during the window every order answer (reads and writes alike) is
// still answered, without `amount`, and still matches the contract less that property.
const ADMIN_KEY = 'migration-admin-key-0123456789';
const fixture = amountMigrationFixture();
const fixtureContract = path.join(fixture.root, 'contracts/openapi.yaml');
const database = serverDatabase('amount-migration');
let clock = new Date('2026-12-01T09:00:00.000Z');
let server: RunningServer;
let productId: number;
let sku: string;
const keys: Record<'reader' | 'mover' | 'trimmer' | 'stocker', string> = {} as never;
const orders: Record<'reader' | 'mover' | 'trimmer', number> = {} as never;

beforeAll(async () => {
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    now: () => clock,
    env: { USAGE_FLUSH_MS: '600000', RATE_LIMIT_ENABLED: 'false' },
  });
  const { core } = server;
  const admin = await core.apiKeys.authenticate(ADMIN_KEY);
  const product = (
    await core.products.create(admin, { name: 'Beans', sku: 'BEAN-MIGRATE', price: minor(1210), stock: 50 })
  ).result;
  ({ id: productId, sku } = product);
  for (const name of ['reader', 'mover', 'trimmer', 'stocker'] as const) {
    const user = (
      await core.users.create(admin, {
        name,
        email: `${name}@migration.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await core.apiKeys.issue(admin, {
      userId: user.id,
      role: name === 'stocker' ? 'admin' : 'customer',
    });
    keys[name] = issued.secret;
    if (name === 'stocker') continue;
    const caller: Caller = await core.apiKeys.authenticate(issued.secret);
    orders[name] = (await core.orders.place(caller, { items: [{ productId, quantity: 1 }] })).result.id;
  }
});

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
  fixture.remove();
});

const iso = (time: number) => new Date(time).toISOString();
const DAY = 24 * 60 * 60 * 1000;

/** A REST call as one of the callers, checked against the fixture's contract. */
async function rest(
  who: keyof typeof keys,
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const url = `${server.httpUrl}${pathname}`;
  const seen = await see(
    await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${who === 'stocker' ? ADMIN_KEY : keys[who]}`,
        'user-agent': `${who}/1.0`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const parsed = (await expectContract(method, url, seen, fixtureContract)) as Record<string, any>;
  return { status: seen.status, headers: seen.headers, body: parsed };
}

/** What each caller reads of its order over REST: the reader all, the mover the split, the trimmer a few fields. */
const reads = {
  reader: () => rest('reader', 'GET', `/v1/orders/${orders.reader}`),
  mover: () => rest('mover', 'GET', `/v1/orders/${orders.mover}?include=amountDetail`),
  trimmer: () => rest('trimmer', 'GET', `/v1/orders/${orders.trimmer}?fields=id,status,items`),
};

function graphql(who: 'reader' | 'mover', query: string) {
  const client = createGraphqlClient({
    url: `${server.httpUrl}/graphql`,
    headers: { authorization: `Bearer ${keys[who]}`, 'user-agent': `${who}/1.0` },
  });
  return new Promise<{ data?: any; errors?: any[]; extensions?: Record<string, any> }>((resolve, reject) => {
    let result = {};
    client.subscribe(
      { query },
      { next: (value) => (result = value), error: reject, complete: () => resolve(result as never) },
    );
  });
}

const graphqlReads = {
  reader: () => graphql('reader', `{ order(id: "${orders.reader}") { id amount } }`),
  mover: () => graphql('mover', `{ order(id: "${orders.mover}") { id amountDetail { total } } }`),
};

/** GetStock as the `stocker` key, with the reply's headers. */
async function getStock() {
  const client = createConnectClient(Inventory, createGrpcTransport({ baseUrl: server.grpcUrl }));
  const headers = new Headers();
  const reply = await client.getStock(
    { sku },
    {
      headers: { 'x-api-key': keys.stocker, 'user-agent': 'stock-sync/2.0' },
      onHeader: (received) => {
        for (const [name, value] of received) headers.set(name, value);
      },
    },
  );
  return { reply, headers };
}

/** The callers report of an item, by client name: uses, replacement uses and brownout hits. */
async function callersOf(item: string) {
  await server.flushUsage();
  const { body } = await rest('stocker', 'GET', `/v1/deprecations/${item}/callers`);
  return Object.fromEntries(
    (body.items as any[]).flatMap((caller) =>
      caller.clients.map((client: any) => [
        client.client.split('/')[0],
        {
          uses: client.uses,
          replacementUses: client.replacementUses,
          brownoutHits: client.brownoutHits,
          apiKeyId: caller.apiKeyId,
        },
      ]),
    ),
  );
}

describe('replacing Order.amount by amountDetail', () => {
  it('keeps the replacement beside the deprecation in the registry', () => {
    const items = Object.fromEntries(fixture.registry.items.map((item) => [item.id, item]));
    expect(items['rest.Order.amount']).toMatchObject({ status: 'deprecated', replacement: 'amountDetail' });
    expect(items['graphql.Order.amount']).toMatchObject({ status: 'deprecated', replacement: 'amountDetail' });
  });

  it('signals only the caller that reads amount, over REST and GraphQL', async () => {
    const reader = await reads.reader();
    expect(reader.body.amount).toBe(12.1);
    expect(reader.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(reader.headers.get('link')).toContain('rest.Order.amount');
    const mover = await reads.mover();
    expect(mover.body.amountDetail).toEqual({ supply: 11, vat: 1.1, total: 12.1 });
    expect(mover.headers.get('deprecation')).toBeNull();
    const trimmer = await reads.trimmer();
    expect(Object.keys(trimmer.body).sort()).toEqual(['id', 'items', 'status']);
    expect(trimmer.headers.get('deprecation')).toBeNull();
    const list = await rest('mover', 'GET', '/v1/orders?include=amountDetail');
    expect(list.headers.get('deprecation')).toBeNull();

    const graphqlReader = await graphqlReads.reader();
    expect(graphqlReader.extensions?.deprecations.map((entry: any) => entry.item)).toEqual(['graphql.Order.amount']);
    const graphqlMover = await graphqlReads.mover();
    expect(graphqlMover.extensions?.deprecations).toBeUndefined();
  });

  it('reports the reader as the one user, the mover by its replacement uses, the trimmer not at all', async () => {
    const callers = await callersOf('rest.Order.amount');
    expect(callers.reader).toMatchObject({ uses: 1, replacementUses: 0, brownoutHits: 0 });
    expect(callers.mover).toMatchObject({ uses: 0, replacementUses: 2, brownoutHits: 0 });
    expect(callers.trimmer).toBeUndefined();
    const graphqlCallers = await callersOf('graphql.Order.amount');
    expect(graphqlCallers.reader).toMatchObject({ uses: 1, replacementUses: 0 });
    expect(graphqlCallers.mover).toMatchObject({ uses: 0, replacementUses: 1 });
  });

  it('counts a gRPC caller of a deprecated reply field by the key it sends', async () => {
    const { reply, headers } = await getStock();
    expect(reply.stock?.reserved).toBe(3);
    expect(headers.get('deprecation')).toMatch(/^@\d+$/);
    const callers = await callersOf('grpc.inventory.v1.Stock.reserved');
    const stocker = await server.core.apiKeys.authenticate(keys.stocker);
    expect(callers['stock-sync']).toMatchObject({ uses: 1, apiKeyId: stocker.apiKeyId });
  });

  it('in a brownout window answers every order without amount, and counts only the reader as hit', async () => {
    const start = clock.getTime() + 8 * DAY;
    for (const item of ['rest.Order.amount', 'graphql.Order.amount', 'grpc.inventory.v1.Stock.reserved']) {
      const created = await rest('stocker', 'POST', '/v1/brownouts', {
        item,
        startsAt: iso(start),
        endsAt: iso(start + 60 * 60_000),
      });
      expect(created.status).toBe(201);
    }
    // Announced: the reader's signals carry the window; the others still get nothing.
    expect((await reads.reader()).headers.get('brownout')).toBe(`${iso(start)}/${iso(start + 60 * 60_000)}`);
    expect((await reads.mover()).headers.get('brownout')).toBeNull();

    const fullEtag = (await reads.reader()).headers.get('etag') as string;
    clock = new Date(start + 60_000);
    const reader = await reads.reader();
    expect(reader.status).toBe(200);
    expect(reader.body).not.toHaveProperty('amount');
    expect(reader.body.id).toBe(orders.reader);
    expect(reader.headers.get('brownout')).toContain('withheld="rest.Order.amount"');
    // A trimmed answer has an ETag of its own: a cached full copy is not "not modified" during the window,
    // and a cached trimmed copy is not after it.
    const trimmedEtag = reader.headers.get('etag') as string;
    expect(trimmedEtag).not.toBe(fullEtag);
    const revalidated = await rest('reader', 'GET', `/v1/orders/${orders.reader}`, undefined, {
      'if-none-match': fullEtag,
    });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body).not.toHaveProperty('amount');
    const unchanged = await rest('reader', 'GET', `/v1/orders/${orders.reader}`, undefined, {
      'if-none-match': trimmedEtag,
    });
    expect(unchanged.status).toBe(304);
    const mover = await reads.mover();
    expect(mover.status).toBe(200);
    expect(mover.body).not.toHaveProperty('amount');
    expect(mover.body.amountDetail.total).toBe(12.1);
    // Every trimmed answer says so; the deprecation signals still go to users only.
    expect(mover.headers.get('brownout')).toContain('withheld="rest.Order.amount"');
    expect(mover.headers.get('deprecation')).toBeNull();
    const trimmer = await reads.trimmer();
    expect(trimmer.status).toBe(200);
    expect(Object.keys(trimmer.body).sort()).toEqual(['id', 'items', 'status']);
    const list = await rest('reader', 'GET', '/v1/orders');
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThan(0);
    for (const order of list.body.items) expect(order).not.toHaveProperty('amount');
    const placed = await rest('reader', 'POST', '/v1/orders', { items: [{ productId, quantity: 1 }] });
    expect(placed.status).toBe(201);
    expect(placed.body).not.toHaveProperty('amount');
    expect(placed.body.items).toHaveLength(1);

    const graphqlReader = await graphqlReads.reader();
    expect(graphqlReader.errors?.[0]).toMatchObject({ path: ['order', 'amount'], extensions: { code: 'BROWNOUT' } });
    const graphqlMover = await graphqlReads.mover();
    expect(graphqlMover.errors).toBeUndefined();
    expect(graphqlMover.data.order.amountDetail.total).toBe(12.1);

    const { reply } = await getStock();
    expect(reply.stock?.reserved).toBe(0);
    expect(reply.stock?.onHand).toBeGreaterThan(0);

    const callers = await callersOf('rest.Order.amount');
    // The reader's read and its revalidation against the full ETag, its list and its order placement
    // met the window; the 304 carried no order. The others never read amount.
    expect(callers.reader).toMatchObject({ brownoutHits: 4 });
    expect(callers.mover).toMatchObject({ uses: 0, brownoutHits: 0 });
    expect(callers.trimmer).toBeUndefined();
    const graphqlCallers = await callersOf('graphql.Order.amount');
    expect(graphqlCallers.reader).toMatchObject({ brownoutHits: 1 });
    expect(graphqlCallers.mover).toMatchObject({ brownoutHits: 0, replacementUses: 2 });
    expect((await callersOf('grpc.inventory.v1.Stock.reserved'))['stock-sync']).toMatchObject({ brownoutHits: 1 });
  });

  it('answers the full order again once the window has ended, to a cache holding the trimmed one', async () => {
    const trimmed = await reads.reader();
    expect(trimmed.body).not.toHaveProperty('amount');
    clock = new Date(clock.getTime() + 2 * 60 * 60_000);
    const after = await rest('reader', 'GET', `/v1/orders/${orders.reader}`, undefined, {
      'if-none-match': trimmed.headers.get('etag') as string,
    });
    expect(after.status).toBe(200);
    expect(after.body.amount).toBe(12.1);
  });

  it('refuses a wrong x-api-key on any rpc', async () => {
    const client = createConnectClient(Inventory, createGrpcTransport({ baseUrl: server.grpcUrl }));
    const failure = await client
      .release({ orderId: '999999', sku }, { headers: { 'x-api-key': 'not-a-key-of-this-server' } })
      .catch((error: unknown) => error as { code?: number });
    expect((failure as { code?: number }).code).toBe(16);
  });
});
