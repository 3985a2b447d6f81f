import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/main.js';
import { testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';
import { startTestServer } from '../support/server.js';

// What an operator scrapes from /metrics beyond HTTP: GraphQL errors refused before execution, gRPC calls
// per method and code, the database pool, and deprecation uses a full usage buffer dropped (a buffer of one
// entry here).
const ADMIN_KEY = 'metrics-test-admin-key-0123456789';
let server: RunningServer;

beforeAll(async () => {
  // No timed flush between the two uses below on a busy machine: the test flushes when it means to.
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, USAGE_MAX_ENTRIES: '1', USAGE_FLUSH_MS: '600000' });
});
afterAll(() => server?.close());

const scrape = async (from: RunningServer = server) =>
  (await fetch(`${from.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text();

const graphql = (body: unknown, userAgent = 'metrics-test/1.0') =>
  fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}`, 'user-agent': userAgent },
    body: JSON.stringify(body),
  });

/**
 * Inventory calls on `on`'s internal port show in its metrics, per method and code, timed: two failing
 * ones, then answered ones (counted between scrapes, so a second scrape adds only the calls since).
 */
async function expectGrpcCounted(on: RunningServer) {
  const inventory = createClient(Inventory, createGrpcTransport({ baseUrl: on.grpcUrl }));
  await expect(inventory.getStock({ sku: 'NO-SUCH-SKU' })).rejects.toThrow();
  await expect(inventory.reserve({ orderId: '', sku: 'X', quantity: 1 })).rejects.toThrow();
  let text = await scrape(on);
  const labels = 'grpc_service="inventory.v1.Inventory"';
  expect(text).toContain(`grpc_server_handled_total{${labels},grpc_method="GetStock",grpc_code="NOT_FOUND"} 1`);
  expect(text).toContain(`grpc_server_handled_total{${labels},grpc_method="Reserve",grpc_code="INVALID_ARGUMENT"} 1`);
  expect(text).toMatch(
    /grpc_server_handling_seconds_count\{grpc_service="inventory.v1.Inventory",grpc_method="GetStock"\} 1/,
  );
  expect(text).not.toContain(`grpc_method="GetStock",grpc_code="OK"`);
  const created = await fetch(`${on.httpUrl}/v1/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Counted', sku: 'METRICS-1', price: 2, stock: 5 }),
  });
  expect(created.status).toBe(201);
  for (let call = 0; call < 3; call++) await inventory.getStock({ sku: 'METRICS-1' });
  text = await scrape(on);
  expect(text).toContain(`grpc_server_handled_total{${labels},grpc_method="GetStock",grpc_code="OK"} 3`);
  await inventory.getStock({ sku: 'METRICS-1' });
  text = await scrape(on);
  expect(text).toContain(`grpc_server_handled_total{${labels},grpc_method="GetStock",grpc_code="OK"} 4`);
  expect(text).toMatch(
    /grpc_server_handling_seconds_count\{grpc_service="inventory.v1.Inventory",grpc_method="GetStock"\} 5/,
  );
}

describe('/metrics on the grpc-js host (GRPC_SERVER=grpc-js)', () => {
  let onGrpcJs: RunningServer;
  beforeAll(async () => {
    onGrpcJs = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, GRPC_SERVER: 'grpc-js' });
  });
  afterAll(() => onGrpcJs?.close());

  it('counts gRPC calls per service, method and code, and times them', () => expectGrpcCounted(onGrpcJs));
});

describe('/metrics for operators', () => {
  it('counts GraphQL validation and persisted-operation errors, which never reach execution', async () => {
    const invalid = (await (await graphql({ query: '{ nope }' })).json()) as { errors: unknown[] };
    expect(invalid.errors).toHaveLength(1);
    const unknown = await graphql({ extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } });
    const body = (await unknown.json()) as { errors: Array<{ extensions: { code: string } }> };
    const code = body.errors[0]?.extensions.code;
    const text = await scrape();
    expect(text).toMatch(/graphql_errors_total\{code="GRAPHQL_VALIDATION_FAILED"\} 1/);
    expect(text).toContain(`graphql_errors_total{code="${code}"} 1`);
  });

  it('counts REST refusals by their problem code: what each limit refused', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    // Over the body limit (1 MiB).
    const large = await fetch(`${server.httpUrl}/v1/products`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
    });
    expect(large.status).toBe(413);
    const unknown = await fetch(`${server.httpUrl}/v1/orders/999999999`, { headers: auth });
    expect(unknown.status).toBe(404);
    const text = await scrape();
    expect(text).toContain('http_problems_total{code="PAYLOAD_TOO_LARGE"} 1');
    expect(text).toContain('http_problems_total{code="ORDER_NOT_FOUND"} 1');
  });

  it('counts gRPC calls per service, method and code, and times them', () => expectGrpcCounted(server));

  it('counts the deprecation uses a full usage buffer dropped, by item', async () => {
    await server.flushUsage();
    // Order.amount is watched; two clients are two entries, and the buffer holds one.
    for (const client of ['shop-web/3.2.1', 'shop-ios/1.0.0'])
      expect((await graphql({ query: '{ orders(first: 1) { id amount } }' }, client)).status).toBe(200);
    expect(await scrape()).toContain('deprecation_usage_dropped_total{item="graphql.Order.amount"} 1');
  });

  it.runIf(requires(testDatabaseUrl, 'PostgreSQL pool metrics', 'set TEST_DATABASE_URL'))(
    'reports the PostgreSQL pool: connections, idle, waiting',
    async () => {
      const text = await scrape();
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
      expect(value('db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(value('db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
      expect(value('db_pool_waiting_requests')).toBe(0);
    },
  );
});
