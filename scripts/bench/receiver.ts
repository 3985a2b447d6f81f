/**
 * The events bench's webhook receiver, a process of its own (forked by `startReceiver`), so that neither
 * the server's process nor the load generator pays for it: node:http answering 204 to every delivery,
 * reading the body and nothing more, except for deliveries to `/latency`, whose arrival time (on the wall
 * clock with sub-millisecond resolution: `performance.timeOrigin + performance.now()`, comparable across
 * processes) is kept by order id for the first `order.created` of each order.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** A high-resolution wall clock in milliseconds, comparable between processes of one machine. */
export const wallClock = () => performance.timeOrigin + performance.now();

/** What the receiver process answers to its parent. */
type Reply =
  | { port: number }
  | { arrivals: Record<string, { at: number; createdAt: string }>; requests: number; connections: number };

function serve() {
  const arrivals: Record<string, { at: number; createdAt: string }> = {};
  const seen = { requests: 0, connections: 0 };
  const server = createServer((request, response) => {
    seen.requests++;
    if (request.url !== '/latency') {
      request.resume();
      request.on('end', () => response.writeHead(204).end());
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = wallClock();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = String(event.data?.object?.id);
      arrivals[id] ??= { at, createdAt: event.createdAt };
      response.writeHead(204).end();
    });
  });
  server.on('connection', () => seen.connections++);
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port } as Reply));
  process.on('message', (message) => {
    if (message === 'arrivals') process.send?.({ arrivals, ...seen } as Reply);
  });
  process.on('disconnect', () => process.exit(0));
}

/** Forks the receiver; resolves once it listens, with its base URL, its pid and a way to read its arrivals. */
export async function startReceiver() {
  const child = fork(import.meta.filename, ['serve'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const next = () =>
    new Promise<Reply>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Reply));
      child.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
  const { port } = (await next()) as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    /**
     * Each order's first arrival at `/latency` (the wall clock then, and the event's `createdAt`), and how
     * many requests and connections the receiver took in all.
     */
    async arrivals() {
      const reply = next();
      child.send('arrivals');
      const { arrivals, requests, connections } = (await reply) as Extract<Reply, { requests: number }>;
      return Object.assign(new Map(Object.entries(arrivals)), { requests, connections });
    },
    close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      return exited;
    },
  };
}

/** Waits until the scratch schema `pool` reads has no pending delivery (at most two minutes). */
export async function drainDeliveries(pool: pg.Pool) {
  const started = performance.now();
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
    );
    if (rows[0]?.n === 0 || performance.now() - started > 120_000) return performance.now() - started;
    await sleep(50);
  }
}

/**
 * A receiver with `count` admin endpoints on it subscribed to `order.created`, created through the server
 * at `serverUrl`; `drained` waits until their deliveries are made (`pool` reads the server's schema).
 */
export async function withWebhookEndpoints(
  serverUrl: string,
  headers: Record<string, string>,
  count: number,
  pool: pg.Pool,
) {
  const receiver = await startReceiver();
  for (let n = 0; n < count; n++) {
    const response = await fetch(`${serverUrl}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.base}/load-${n}`, events: ['order.created'] }),
    });
    if (!response.ok) throw new Error(`POST /v1/webhook-endpoints: ${response.status} ${await response.text()}`);
  }
  return { receiver, drained: () => drainDeliveries(pool), close: () => receiver.close() };
}

if (process.argv[2] === 'serve') serve();
