import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pino } from 'pino';
import { type Measured, wrk } from './load.js';
import { type importBuild, scratchDataSet } from './scratch.js';

type Build = Awaited<ReturnType<typeof importBuild>>;
type Sides = { baseline: Measured; ours: Measured };

/** How the events section runs: the build, the load settings and run.ts's alternation. */
export interface EventsBench {
  url: string;
  build: Build;
  quick: boolean;
  seconds: number;
  connections: number;
  compare: (baseline: () => Promise<Measured>, ours: () => Promise<Measured>) => Promise<Sides>;
  warm: (...runs: Array<() => Promise<Measured>>) => Promise<void>;
}

/** The endpoints subscribed to `order.created` during the write row's "outbox on" side. */
const ENDPOINTS = 3;
/** Orders a second during the delivery latency run: steady and moderate, far below the write row's rate. */
const RATE = 20;

/**
 * A node:http receiver answering 204 to every delivery; for those sent to `/latency`, the arrival time of
 * each order's first `order.created` (by order id), on this process's clock and on the wall clock.
 */
async function startReceiver() {
  const arrivals = new Map<string, { at: number; wallClock: number; createdAt: string }>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      if (request.url === '/latency') {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const id = String(event.data?.object?.id);
        if (!arrivals.has(id)) arrivals.set(id, { at, wallClock: Date.now(), createdAt: event.createdAt });
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The value below which `share` of the sorted `values` lie. */
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;

/**
 * The events rows, on a data set of their own (the write row adds orders, which the read rows must not
 * see), served with `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` so that endpoints on loopback are accepted:
 * `POST /v1/orders` with 3 enabled endpoints subscribed to `order.created` against the same server with
 * them disabled (events are written on both sides; only the delivery rows and their delivery differ), and
 * the delivery latency from the 201's arrival to the receiver's at a steady rate.
 */
export async function benchEvents(bench: EventsBench) {
  const scratch = await scratchDataSet(bench.url, 'bench_events');
  const server = await bench.build.startServer(
    bench.build.loadConfig(scratch.settings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })),
    pino({ level: 'warn' }),
  );
  const pool = new pg.Pool({ connectionString: bench.url, max: 2, options: `-c search_path=${scratch.schema}` });
  const receiver = await startReceiver();
  const headers = { authorization: `Bearer ${scratch.adminKey}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${server.httpUrl}${path}`, { method, headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string | number };
  };
  const endpoint = (path: string) =>
    call('POST', '/v1/webhook-endpoints', { url: `${receiver.base}${path}`, events: ['order.created'] });
  const notes: string[] = [];
  try {
    const loadEndpoints = await Promise.all(Array.from({ length: ENDPOINTS }, (_, n) => endpoint(`/load-${n}`)));
    const enable = (on: boolean) =>
      Promise.all(loadEndpoints.map(({ id }) => call('PATCH', `/v1/webhook-endpoints/${id}`, { disabled: !on })));
    let drainMs = 0;
    /** Waits until no delivery is pending, so that one side's backlog does not load the other's run. */
    const drain = async () => {
      const started = performance.now();
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
        );
        if (rows[0]?.n === 0 || performance.now() - started > 120_000) break;
        await sleep(50);
      }
      drainMs = Math.max(drainMs, performance.now() - started);
    };
    const write = () =>
      wrk(server.httpUrl, { path: 'new-order', headers }, { seconds: bench.seconds, connections: bench.connections });
    const off = async () => {
      await enable(false);
      return write();
    };
    const on = async () => {
      await enable(true);
      const measured = await write();
      await drain();
      return measured;
    };
    await write(); // the first load warms the server up, in a quick run too
    await bench.warm(off, on);
    const row = {
      label: `REST POST /v1/orders, ${ENDPOINTS} webhook endpoints`,
      baseline: 'the same endpoints disabled',
      measured: await bench.compare(off, on),
      target: 0.95,
    };
    notes.push(
      `events: after an "outbox on" run, ${ENDPOINTS} endpoints' deliveries drained within ${Math.round(drainMs)} ms`,
    );
    await enable(false);
    await drain();
    notes.push(await deliveryLatency(bench.quick ? 2 : 10, receiver, call, endpoint));
    return { rows: [row], notes };
  } finally {
    await server.close();
    await receiver.close();
    await pool.end();
    await scratch.drop();
  }
}

/**
 * Places `RATE` orders a second for `seconds` (each its own request, not waiting for the previous one) with
 * one endpoint on the receiver's `/latency`, and returns the line of the delivery latency: from the 201's
 * arrival at the client to the delivery's arrival at the receiver, both on this process's clock. An order
 * the server refuses is counted in the line, not timed.
 */
async function deliveryLatency(
  seconds: number,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  call: (method: string, path: string, body: unknown) => Promise<{ id: string | number }>,
  endpoint: (path: string) => Promise<{ id: string | number }>,
) {
  await endpoint('/latency');
  const committed = new Map<string, number>();
  /** Orders the server refused (a 504 when the machine is too loaded to place one in 2 s), counted, not timed. */
  const failures: string[] = [];
  const placed: Promise<void>[] = [];
  const count = seconds * RATE;
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const wait = started + (n * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const body = { userId: 1 + (n % 1000), items: [{ productId: 1 + (n % 50), quantity: 1 }] };
    placed.push(
      call('POST', '/v1/orders', body).then(
        ({ id }) => void committed.set(String(id), performance.now()),
        (error: Error) => void failures.push(error.message.slice(0, 120)),
      ),
    );
  }
  await Promise.all(placed);
  const deadline = performance.now() + 30_000;
  while (receiver.arrivals.size < committed.size && performance.now() < deadline) await sleep(20);
  const fromCommit: number[] = [];
  const fromCreatedAt: number[] = [];
  for (const [id, at] of committed) {
    const arrival = receiver.arrivals.get(id);
    if (!arrival) continue;
    fromCommit.push(arrival.at - at);
    fromCreatedAt.push(arrival.wallClock - Date.parse(arrival.createdAt));
  }
  fromCommit.sort((a, b) => a - b);
  fromCreatedAt.sort((a, b) => a - b);
  const ms = (value: number) => value.toFixed(1);
  return `events: delivery latency at ${RATE} orders/s for ${seconds} s, ${committed.size} of ${count} placed${failures.length > 0 ? ` (first refusal: ${failures[0]})` : ''}, ${fromCommit.length} of them delivered: 201 → receiver p50 ${ms(percentile(fromCommit, 0.5))} ms, p99 ${ms(percentile(fromCommit, 0.99))} ms; event createdAt → receiver p50 ${ms(percentile(fromCreatedAt, 0.5))} ms, p99 ${ms(percentile(fromCreatedAt, 0.99))} ms`;
}
