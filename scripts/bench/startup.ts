import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wrk } from './load.js';

const root = path.resolve(import.meta.dirname, '../..');
/** `npm start`'s command: the tracing hook's --import entry (inert without an OTLP endpoint), then the server. */
const entry = ['--import', './dist/src/observability/tracing-register.js', 'dist/src/main.js'];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resident memory of a process in MiB, from /proc. */
function residentMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kib / 1024;
}

/** Starts the built server as `npm start` does and times it to a ready `/health`. */
export async function startBuilt(env: Record<string, string>, args = entry) {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/health/ready`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) break;
    await sleep(10);
  }
  return { child, url, readyMs: performance.now() - started };
}

/** Stops a server started by `startBuilt` (SIGTERM: it drains) and waits for its exit. */
export async function stopBuilt(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Start time and memory of one configuration. */
export interface StartFigures {
  label: string;
  readyMs: number;
  rssAfterStartMiB: number;
  rssAfterLoadMiB: number;
}

/**
 * Times a start to a ready `/health` and reads the resident memory then and after `loadSeconds` of mixed
 * load (reads by id, pages, a GraphQL page): on a warm embedded database (a data directory that was
 * started once before) and on PostgreSQL (`env` gives the server its database).
 */
export async function measureStart(
  label: string,
  env: Record<string, string>,
  adminKey: string,
  loadSeconds: number,
  readPath = 'random-order',
): Promise<StartFigures> {
  const { child, url, readyMs } = await startBuilt(env);
  try {
    await sleep(500); // let the first-request work (JIT, pool) settle before reading memory
    const rssAfterStartMiB = residentMiB(child.pid as number);
    const headers = { authorization: `Bearer ${adminKey}` };
    const mix = [
      wrk(url, { path: readPath, headers }, { seconds: loadSeconds, connections: 8 }),
      wrk(url, { path: '/v1/orders?size=20', headers }, { seconds: loadSeconds, connections: 4 }),
      wrk(
        url,
        {
          path: '/graphql',
          headers,
          body: JSON.stringify({ query: '{ orders(first: 20) { id status user { name } } }' }),
        },
        { seconds: loadSeconds, connections: 4 },
      ),
    ];
    await Promise.all(mix);
    return { label, readyMs, rssAfterStartMiB, rssAfterLoadMiB: residentMiB(child.pid as number) };
  } finally {
    await stopBuilt(child);
  }
}

/** The embedded database, warm: started once to create and seed it, then timed on the second start. */
export async function measureEmbeddedStart(adminKey: string, loadSeconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pglite-'));
  const env = { DATA_DIR: dataDir, ADMIN_API_KEY: adminKey, RATE_LIMIT_ENABLED: 'false' };
  try {
    const first = await startBuilt(env);
    await stopBuilt(first.child);
    // The demo data set is small: the reads go to its first product instead of 100k orders.
    const figures = await measureStart('embedded PGlite (warm)', env, adminKey, loadSeconds, '/v1/products/1');
    return { firstStartMs: first.readyMs, ...figures };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
