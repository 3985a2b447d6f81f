/**
 * The abuse run (`npm run abuse`): starts the server on a fresh embedded database and, at once, opens 100
 * requests for GraphiQL's page and its 9 MB script that never read their answers, sends 10 GraphQL bodies of
 * 2 MiB, and opens 1,000 `WatchStock` streams over 10 HTTP/2 connections. It reports the server's RSS
 * growth (goal: under 100 MB), the slowest `/health/live` answer while it ran, and what each door answered.
 * A measurement, not a timed test: the figures depend on the machine. Exit code 1 when the RSS goal fails
 * or `/health/live` failed to answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Inventory } from '../generated/proto/inventory/v1/inventory_pb.js';

const root = path.resolve(import.meta.dirname, '..');
const RSS_GOAL_MB = 100;

/** The resident set of a process, in MB. */
const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? Number.NaN) / 1024;
};

/** Starts `src/main.ts` on a fresh data directory and resolves with its addresses once it listens. */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; httpUrl: string; grpcUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.includes('order api listening')) return;
      const { http, grpc } = JSON.parse(line) as { http: string; grpc: string };
      resolve({ child, httpUrl: http, grpcUrl: grpc });
    });
  });
}

/** Sends a GET over a raw socket and never reads the answer; resolves once the request is written. */
function unreadRequest(url: URL, target: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.pause();
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/html\r\n\r\n`, () => resolve(socket));
    });
    socket.once('error', reject);
  });
}

/** Polls `/health/live` every 100 ms until `stop`; the slowest answer in ms (Infinity when one failed). */
function watchLiveness(httpUrl: string) {
  let slowest = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const ok = await fetch(`${httpUrl}/health/live`, { signal: AbortSignal.timeout(10_000) }).then(
        (response) => response.ok,
        () => false,
      );
      slowest = Math.max(slowest, ok ? performance.now() - started : Number.POSITIVE_INFINITY);
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return slowest;
    },
  };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'order-api-abuse-'));
const { child, httpUrl, grpcUrl } = await startServer(dataDir);
const pid = child.pid as number;
let exitCode = 1;
try {
  const url = new URL(httpUrl);
  const page = await fetch(`${httpUrl}/graphql`, { headers: { accept: 'text/html' } }).then((r) => r.text());
  const script = page.match(/src="(\/graphql\/graphiql\/graphiql\.js[^"]*)"/)?.[1] ?? '/graphql';
  const sku =
    ((await fetch(`${httpUrl}/v1/products`).then((r) => r.json())) as { items: Array<{ sku: string }> }).items[0]
      ?.sku ?? '';
  await sleep(1000);
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);
  const liveness = watchLiveness(httpUrl);

  // 100 unread GraphiQL requests: 50 for the page, 50 for its 9 MB script.
  const sockets = await Promise.all(
    Array.from({ length: 100 }, (_, index) => unreadRequest(url, index % 2 === 0 ? '/graphql' : script)),
  );
  // 10 GraphQL bodies of 2 MiB of unused variables.
  const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(2 * 1024 * 1024) } });
  const bodies = await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${httpUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }).then(
        (response) => response.status,
        () => 0,
      ),
    ),
  );
  // 1,000 WatchStock streams over 10 HTTP/2 connections.
  const streams = new AbortController();
  setMaxListeners(0, streams.signal);
  let opened = 0;
  const refused = new Map<string, number>();
  const watchers = Array.from({ length: 10 }, () =>
    createClient(Inventory, createGrpcTransport({ baseUrl: grpcUrl })),
  ).flatMap((client) =>
    Array.from({ length: 100 }, async () => {
      try {
        const stream = client.watchStock({ sku }, { signal: streams.signal, onHeader: () => opened++ });
        for await (const _ of stream) {
          // Changes are not expected: nothing writes during the run.
        }
      } catch (error) {
        const code = ConnectError.from(error).code;
        if (code !== Code.Canceled) refused.set(Code[code], (refused.get(Code[code]) ?? 0) + 1);
      }
    }),
  );
  await sleep(3000);
  const during = rssMb(pid);
  clearInterval(sampler);
  const slowest = await liveness.stop();
  streams.abort();
  await Promise.all(watchers);
  for (const socket of sockets) socket.destroy();

  const growth = Math.max(peak, during) - before;
  const statuses = [...new Set(bodies)].map((status) => `${bodies.filter((s) => s === status).length} × ${status}`);
  console.log(`abuse run against ${httpUrl} (pid ${pid}), embedded database`);
  console.log(
    `  RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB: growth ${growth.toFixed(0)} MB (goal under ${RSS_GOAL_MB} MB)`,
  );
  console.log(
    `  slowest /health/live while it ran: ${Number.isFinite(slowest) ? `${slowest.toFixed(0)} ms` : 'a probe failed'}`,
  );
  console.log(`  100 unread GraphiQL requests (page and ${script.split('?')[0]}): written, never read`);
  console.log(`  10 GraphQL bodies of 2 MiB: ${statuses.join(', ')}`);
  console.log(
    `  1,000 WatchStock streams over 10 connections: ${opened} opened${[...refused].map(([code, n]) => `, ${n} ${code}`).join('')}`,
  );
  exitCode = growth < RSS_GOAL_MB && Number.isFinite(slowest) ? 0 : 1;
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
