import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wrk } from './load.js';

const entry = path.resolve(import.meta.dirname, '../../dist/src/main.js');

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

/** Starts the built server (`node dist/src/main.js`, as `npm start` does) and times it to a ready `/health`. */
async function start(env: Record<string, string>) {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(process.execPath, [entry], {
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

async function stop(child: ChildProcess) {
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
  const { child, url, readyMs } = await start(env);
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
    await stop(child);
  }
}

/** The embedded database, warm: started once to create and seed it, then timed on the second start. */
export async function measureEmbeddedStart(adminKey: string, loadSeconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pglite-'));
  const env = { DATA_DIR: dataDir, ADMIN_API_KEY: adminKey, RATE_LIMIT_ENABLED: 'false' };
  try {
    const first = await start(env);
    await stop(first.child);
    // The demo data set is small: the reads go to its first product instead of 100k orders.
    const figures = await measureStart('embedded PGlite (warm)', env, adminKey, loadSeconds, '/v1/products/1');
    return { firstStartMs: first.readyMs, ...figures };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
