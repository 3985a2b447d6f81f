/**
 * Profiling harness: starts the server in this process over a scratch schema with 100k orders, loads one
 * target and writes a CPU profile of the load window only (not the dataset load or the shutdown), so that
 * `npx tsx scripts/bench/profile.ts <target>` records where the time goes. Targets: rest-id, rest-page,
 * graphql-page, graphql-typename, grpc-getstock, bare-id, bare-page, bare-grpc-getstock (connect-node with
 * the same SQL and nothing else), bare-grpcjs-getstock (@grpc/grpc-js with the same SQL, the bench's baseline), rest-write (`POST /v1/orders` as the events bench places them) and
 * rest-write-hooks (the same with 3 webhook endpoints on a receiver process of its own, ./receiver.ts; the
 * window lasts until their deliveries are drained, so that it holds all their cost). The profile is written to
 * `PROFILE_DIR` (default `profiles/`) as `<target>.cpuprofile`; open it in Chrome DevTools or speedscope.
 * It also prints the process's CPU time per request (the server, or the bare baseline, and the profiler).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import { pino } from 'pino';
import { GetStockRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { baselinePool, startBareRest, startConnectNodeInventory, startGrpcJsInventory } from './baselines.js';
import { h2load, wrk } from './load.js';
import { withWebhookEndpoints } from './receiver.js';
import { importBuild, scratchDataSet } from './scratch.js';

// The server as it ships (tsc's output in dist/), as `npm run bench` measures it; or `DIST`, a copy of
// dist/ inside the checkout (as scripts/bench/ab.ts takes), to profile an earlier build.
const root = path.resolve(import.meta.dirname, '../..');
const dist = path.resolve(process.env.DIST ?? path.join(root, 'dist'));
if (!process.env.DIST) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const { startServer, loadConfig } = await importBuild(dist);
/**
 * CPU time of this process's main thread (µs) from /proc, user and system apart: the JavaScript thread
 * alone. Its system time is what the kernel spent for it; a wall-clock profile also counts the time the
 * thread waited, descheduled, inside a system call.
 */
function mainThreadMicros(): { user: number; system: number } {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}
const target = process.argv[2] ?? 'rest-id';
const seconds = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 32);
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const scratch = await scratchDataSet(url, 'prof');
/** `SERVER_ENV` (`NAME=value,NAME=value`): settings of the profiled server, to weigh one. */
function serverEnv(text = ''): Record<string, string> {
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}
const server = await startServer(
  loadConfig(scratch.settings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...serverEnv(process.env.SERVER_ENV) })),
  pino({ level: 'warn' }),
);
const headers = { authorization: `Bearer ${scratch.adminKey}` };
const hooksPool = target === 'rest-write-hooks' ? baselinePool(url, scratch.schema) : undefined;
const hooks = hooksPool ? await withWebhookEndpoints(server.httpUrl, headers, 3, hooksPool) : undefined;
const query =
  '{ ordersConnection(first: 20) { nodes { id status amount createdAt user { name } } pageInfo { endCursor hasNextPage } } }';
const bareRest = target === 'bare-id' || target === 'bare-page';
const bareGrpcTarget = target === 'bare-grpc-getstock' || target === 'bare-grpcjs-getstock';
const pool = bareRest || bareGrpcTarget ? baselinePool(url, scratch.schema) : undefined;
const bare = bareRest && pool ? await startBareRest(pool) : undefined;
const bareGrpc =
  bareGrpcTarget && pool
    ? await (target === 'bare-grpc-getstock' ? startConnectNodeInventory(pool) : startGrpcJsInventory(pool))
    : undefined;
const getStock = toBinary(GetStockRequestSchema, create(GetStockRequestSchema, { sku: 'BENCH-1' }));
try {
  const runFor = (seconds: number) => ({
    'bare-id': () => wrk(bare?.url ?? '', { path: 'random-order', headers }, { seconds, connections }),
    'bare-page': () => wrk(bare?.url ?? '', { path: '/v1/orders?size=20', headers }, { seconds, connections }),
    'rest-id': () => wrk(server.httpUrl, { path: 'random-order', headers }, { seconds, connections }),
    'rest-page': () => wrk(server.httpUrl, { path: '/v1/orders?size=20', headers }, { seconds, connections }),
    'graphql-page': () =>
      wrk(server.httpUrl, { path: '/graphql', headers, body: JSON.stringify({ query }) }, { seconds, connections }),
    'graphql-typename': () =>
      wrk(
        server.httpUrl,
        { path: '/graphql', headers, body: JSON.stringify({ query: '{ __typename }' }) },
        { seconds, connections },
      ),
    'rest-write': () => wrk(server.httpUrl, { path: 'new-order', headers }, { seconds, connections }),
    'rest-write-hooks': async () => {
      const measured = await wrk(server.httpUrl, { path: 'new-order', headers }, { seconds, connections });
      await hooks?.drained();
      return measured;
    },
    'grpc-getstock': () => h2load(server.grpcUrl, 'inventory.v1.Inventory/GetStock', getStock, { seconds }),
    'bare-grpc-getstock': () => h2load(bareGrpc?.url ?? '', 'inventory.v1.Inventory/GetStock', getStock, { seconds }),
    'bare-grpcjs-getstock': () => h2load(bareGrpc?.url ?? '', 'inventory.v1.Inventory/GetStock', getStock, { seconds }),
  });
  const run = runFor(seconds)[target as keyof ReturnType<typeof runFor>];
  if (!run) throw new Error(`unknown target ${target}`);
  // A warm-up first (`WARMUP` seconds, default 3), as the bench does: JIT, caches and pools settle.
  const warmup = Number(process.env.WARMUP ?? 3);
  if (warmup > 0) await runFor(warmup)[target as keyof ReturnType<typeof runFor>]();
  // PROFILE=off measures the CPU per request without the profiler's own cost; PROFILE=heap samples
  // allocations instead of CPU (a .heapprofile: where garbage is made).
  const mode = process.env.PROFILE ?? 'cpu';
  const session = mode === 'off' ? undefined : new Session();
  session?.connect();
  if (mode === 'heap')
    await session?.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  else if (session) {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 1000) });
    await session.post('Profiler.start');
  }
  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadMicros();
  const measured = await run();
  const cpu = process.cpuUsage(cpuBefore);
  const mainAfter = mainThreadMicros();
  // CPU time of this process per request (all its threads, the garbage collector's too): steadier than
  // throughput on a shared machine.
  const perRequest = (cpu.user + cpu.system) / (measured.rps * seconds);
  const rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
  const requests = measured.rps * seconds;
  console.log(target, {
    ...measured,
    cpuMicrosPerRequest: Math.round(perRequest),
    mainThreadUserMicrosPerRequest: Math.round((mainAfter.user - mainBefore.user) / requests),
    mainThreadSystemMicrosPerRequest: Math.round((mainAfter.system - mainBefore.system) / requests),
    rssMiB,
  });
  if (session) {
    const { profile } =
      mode === 'heap' ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
    const dir = path.resolve(process.env.PROFILE_DIR ?? 'profiles');
    const file = path.join(dir, `${target}.${mode === 'heap' ? 'heapprofile' : 'cpuprofile'}`);
    await mkdir(dir, { recursive: true });
    await writeFile(file, JSON.stringify(profile));
    console.log(`profile: ${file}`);
  }
} finally {
  bare?.close();
  await hooks?.close();
  await hooksPool?.end();
  await bareGrpc?.close();
  await pool?.end();
  await server.close();
  await scratch.drop();
}
process.exit(0);
