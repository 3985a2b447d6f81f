import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractClient } from '../support/client.js';
import { serverDatabase } from '../support/database.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { type StartedProcess, startProcess } from '../support/process.js';

// The built server started as the image and `npm start` start it (`node --import …/tracing-register.js
// dist/src/main.js`), exporting to an OTLP/HTTP receiver this test runs: a request's trace must reach it
// whole, continuing the caller's `traceparent`, and the trace id must be in the log lines and problems.
const root = path.resolve(import.meta.dirname, '../..');
const ENTRY = ['--import', './dist/src/observability/tracing-register.js', 'dist/src/main.js'];
const ADMIN_KEY = 'oak_tracing-test-admin-key-0123';
const SERVER = 2;
const CLIENT = 3;

const cleanUps: Array<() => Promise<unknown> | undefined> = [];
let receiver: OtlpReceiver;

beforeAll(async () => {
  // `npm start`'s prestart: compiles dist/ when the sources are newer.
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' });
  receiver = await startOtlpReceiver();
  cleanUps.push(() => receiver.close());
}, 180_000);
afterAll(async () => {
  for (const cleanUp of cleanUps.reverse()) await cleanUp();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the built server with tracing on, exporting to the receiver every 100 ms. */
async function startTraced(env: Record<string, string> = {}): Promise<{ process: StartedProcess; httpUrl: string }> {
  const database = serverDatabase('tracing');
  const { DATABASE_URL: _url, ...inherited } = process.env;
  const started = startProcess(process.execPath, ENTRY, {
    cwd: root,
    env: {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      GRPC_HOST: '127.0.0.1',
      ADMIN_API_KEY: ADMIN_KEY,
      SEED_DEMO: 'false',
      RATE_LIMIT_ENABLED: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...database.env,
      ...env,
    },
  });
  cleanUps.push(async () => {
    if (started.child.exitCode === null) process.kill(-(started.child.pid as number), 'SIGKILL');
    await started.exited;
    await database.remove();
  });
  const listening = await started.waitForLog((line) => line.msg === 'order api listening');
  return { process: started, httpUrl: String(listening.http) };
}

/** A W3C `traceparent` of a caller's own trace: version 00, sampled. */
function callerTrace() {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

/** Places an order as a new customer, under the caller's `traceparent`; resolves with the trace's ids. */
async function placeTracedOrder(httpUrl: string) {
  const admin = contractClient(httpUrl, ADMIN_KEY);
  const user = await admin.POST('/v1/users', {
    body: { name: 'Tracy', email: `tracy-${Date.now()}@example.com`, address: { zipCode: '04524', line1: '1 Road' } },
  });
  const key = await admin.POST('/v1/api-keys', { body: { userId: user.data?.id as number, role: 'customer' } });
  const product = await admin.POST('/v1/products', {
    body: { name: 'Traced kettle', sku: `TRACE-${Date.now()}`, price: 10, stock: 5 },
  });
  const caller = callerTrace();
  const customer = contractClient(httpUrl, key.data?.key as string);
  const order = await customer.POST('/v1/orders', {
    body: { items: [{ productId: product.data?.id as number, quantity: 1 }] },
    headers: { traceparent: caller.traceparent },
  });
  expect(order.response.status).toBe(201);
  return caller;
}

const named = (spans: ReceivedSpan[], name: string, kind?: number) =>
  spans.filter((span) => span.name === name && (kind === undefined || span.kind === kind));
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId);
const isSql = (span: ReceivedSpan) =>
  span.name.startsWith('pg.query:') && span.attributes['db.system.name'] === 'postgresql';

/** The shape every traced order placement has, whichever way the inventory is reached. */
function expectOrderTrace(trace: ReceivedSpan[], caller: { parentId: string }) {
  // The REST server span continues the caller's span and is named by route.
  const [serverSpan] = named(trace, 'POST /v1/orders', SERVER);
  expect(serverSpan, 'the server span').toBeDefined();
  expect(serverSpan?.parentSpanId).toBe(caller.parentId);
  expect(serverSpan?.attributes['http.route']).toBe('/v1/orders');
  // The use case is a child of the server span, and the key check beside it.
  const [useCase] = named(trace, 'orders.place');
  expect(useCase?.parentSpanId).toBe(serverSpan?.spanId);
  expect(named(trace, 'apiKeys.authenticate')[0]?.parentSpanId).toBe(serverSpan?.spanId);
  // Its SQL statements and its inventory call are its children.
  const underUseCase = childrenOf(trace, useCase as ReceivedSpan);
  expect(underUseCase.filter(isSql).length).toBeGreaterThan(0);
  const [reserveCall] = underUseCase.filter((span) => span.name === 'inventory.v1.Inventory/ReserveOrder');
  expect(reserveCall?.kind).toBe(CLIENT);
  // The inventory service continues the call's trace in a server span, and its SQL is under that.
  const [reserveServed] = named(trace, 'inventory.v1.Inventory/ReserveOrder', SERVER);
  expect(reserveServed?.parentSpanId).toBe(reserveCall?.spanId);
  expect(childrenOf(trace, reserveServed as ReceivedSpan).filter(isSql).length).toBeGreaterThan(0);
  return { serverSpan: serverSpan as ReceivedSpan };
}

const complete = (trace: ReceivedSpan[]) =>
  named(trace, 'POST /v1/orders').length === 1 &&
  named(trace, 'inventory.v1.Inventory/ReserveOrder', SERVER).length > 0;

describe('tracing with an OTLP endpoint', { timeout: 180_000 }, () => {
  it('exports a placed order as one trace continuing the caller’s, its id in the log lines and problems', async () => {
    const { process: server, httpUrl } = await startTraced();
    const caller = await placeTracedOrder(httpUrl);
    const trace = await receiver.waitForTrace(caller.traceId, complete);
    const { serverSpan } = expectOrderTrace(trace, caller);

    // Every log line written during the request names the trace.
    const requestLine = server.logLines().find((line) => line.msg === 'request' && line.spanId === serverSpan.spanId);
    expect(requestLine).toMatchObject({ traceId: caller.traceId, route: 'createOrder', status: 201 });

    // A problem document carries the trace id (checked against the contract by the client).
    const problemCaller = callerTrace();
    const missing = await contractClient(httpUrl, ADMIN_KEY).GET('/v1/orders/{orderId}', {
      params: { path: { orderId: 999_999 } },
      headers: { traceparent: problemCaller.traceparent },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'ORDER_NOT_FOUND', traceId: problemCaller.traceId });

    // So does every GraphQL error, in its extensions.
    const graphqlCaller = callerTrace();
    const answer = await fetch(`${httpUrl}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        traceparent: graphqlCaller.traceparent,
      },
      body: JSON.stringify({ query: '{ order(id: "999999") { id } }' }),
    });
    const { errors } = (await answer.json()) as { errors: Array<{ extensions: Record<string, unknown> }> };
    expect(errors.map((error) => error.extensions)).toEqual([
      { code: 'ORDER_NOT_FOUND', traceId: graphqlCaller.traceId },
    ]);
  });

  it('carries traceparent on real gRPC calls to the inventory, where the gRPC server continues it', async () => {
    // The server reaches its own internal port over HTTP/2 instead of in-process.
    const grpcPort = await freePort();
    const { httpUrl } = await startTraced({
      GRPC_PORT: String(grpcPort),
      INVENTORY_URL: `http://127.0.0.1:${grpcPort}`,
    });
    const caller = await placeTracedOrder(httpUrl);
    expectOrderTrace(await receiver.waitForTrace(caller.traceId, complete), caller);
  });
});

describe('tracing without an OTLP endpoint', () => {
  /** The OpenTelemetry modules a process started with the --import entry has loaded. */
  function loadedTelemetry(env: Record<string, string | undefined>): string[] {
    const {
      OTEL_EXPORTER_OTLP_ENDPOINT: _all,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: _traces,
      ...inherited
    } = process.env;
    const listed = execFileSync(
      process.execPath,
      [
        '--import',
        './dist/src/observability/tracing-register.js',
        '-e',
        'console.log(JSON.stringify(Object.keys(require.cache).filter((file) => /opentelemetry|in-the-middle/.test(file))))',
      ],
      { cwd: root, env: { ...inherited, ...env }, encoding: 'utf8' },
    );
    return JSON.parse(listed) as string[];
  }

  it('loads no SDK and no loader hook', () => {
    expect(loadedTelemetry({})).toEqual([]);
    expect(loadedTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' })).toEqual([]);
    // The same probe sees them when tracing is on.
    const on = loadedTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(on.some((file) => file.includes('@opentelemetry/sdk-node'))).toBe(true);
    expect(on.some((file) => file.includes('import-in-the-middle'))).toBe(true);
  });
});
