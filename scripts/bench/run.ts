/**
 * One benchmark for all three interfaces (`npm run bench`; `npm run bench -- --quick`, about a minute of
 * one-second loads, each side once and without warm-ups, checks that every row runs).
 * Every figure is a ratio against a baseline measured in the same run, in alternating order, because this
 * machine is shared and its load drifts:
 *
 * - REST: the full server against a bare Hono + pg handler running the same SQL (read by id, page of 20),
 *   its statements unnamed as a plain pg handler's are; and the read by id against the bare handler with
 *   its statements prepared by name too, as the server's are (the stack's own cost, with equal database work);
 * - GraphQL: `ordersConnection(first: 20)` against the REST page of 20 on the same server;
 * - gRPC: connect-node `GetStock` and `Reserve` against a plain @grpc/grpc-js server answering the same
 *   proto with the same SQL through a pool of the same size (h2load, 4 connections × 16 streams); the same
 *   two on the grpc-js host (`GRPC_SERVER=grpc-js`) against it; and each host's floor with a constant answer;
 * - the request-shape record: REST by id, a REST page, a GraphQL page and gRPC `GetStock` with it on against
 *   the same server with `SHAPES_RECORD=false`;
 * - the rate budget (memory, Redis) and deprecation usage recording: the server with each on against the
 *   server with it off;
 * - tracing (OpenTelemetry): the REST reads with the --import entry and tracing off against no entry at all,
 *   and with tracing on (every request sampled, exported over OTLP) against tracing off, each a built
 *   server process of its own;
 * - cluster mode: the REST read by id on `WORKERS=2` against one process, each a built server of its own;
 * - events (a data set of its own, ./events.ts): `POST /v1/orders` with 3 webhook endpoints subscribed
 *   against the same endpoints disabled, on an instance that only queues the deliveries
 *   (`WEBHOOK_DISPATCH=false`) and on one that delivers them while it serves; the CPU per order and per
 *   delivery (server, receiver, PostgreSQL); and the delivery latency from the 201 to a receiver process at
 *   20 orders a second, through a dispatcher instance and within one instance;
 * - keyset paging: page 1000 against page 1;
 * - start: milliseconds to a ready `/health`, resident memory after start and after mixed load.
 *
 * Options: `--quick`; `--only=rest,graphql,grpc,budget,recording,shapes,tracing,cluster,events,paging,start`. Environment:
 * `DATABASE_URL` (default the local server's `test` database; a scratch schema is dropped at the end),
 * `DURATION` (seconds per load run, default 8), `CONNECTIONS` (wrk, default 32), `REDIS_URL` (default
 * 127.0.0.1:6379; the Redis row is skipped when it does not answer). Needs wrk and h2load
 * (Debian: apt-get install wrk nghttp2-client).
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { create, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import {
  GetStockRequestSchema,
  Inventory,
  ReserveRequestSchema,
} from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/compose/server.js';
import {
  baselinePool,
  startBareHttp,
  startBareRest,
  startBareYoga,
  startConnectNodeInventory,
  startGrpcJsInventory,
  startPlainYoga,
  startServiceImplOnGrpcJs,
} from './baselines.js';
import { benchEvents } from './events.js';
import { alternate, h2load, type Measured, requireTools, wrk } from './load.js';
import { importBuild, scratchDataSet } from './scratch.js';
import { measureEmbeddedStart, measureStart, type StartFigures, startBuilt, stopBuilt } from './startup.js';
import { type CpuTally, microsPerRequest, withTracingSides } from './tracing.js';

const quick = process.argv.includes('--quick');
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wants = (section: string) => !only || only.includes(section);
const seconds = quick ? 1 : Number(process.env.DURATION ?? 8);
const connections = Number(process.env.CONNECTIONS ?? 32);
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One line of the table: ours against its baseline, and the target the ratio must reach. */
interface Row {
  label: string;
  baseline: string;
  measured: { baseline: Measured; ours: Measured };
  /** The least acceptable ratio of throughputs (ours / baseline); none for a row that shows a library's floor. */
  target?: number;
  /** The most acceptable ratio of p99s, where one is set. */
  p99Target?: number;
  /** Set when what was measured in the same run shows the target out of reach (a library's floor, the machine), and why. */
  ceiling?: string;
}
const rows: Row[] = [];
const notes: string[] = [];
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const began = performance.now();
/** Progress on stderr, so a long run shows where it is; the table goes to stdout at the end. */
const progress = (section: string) =>
  console.error(`bench: ${section} done at ${Math.round((performance.now() - began) / 1000)} s`);

requireTools('wrk', 'h2load');
// The server as it ships: `npm start` runs tsc's output in dist/, not the tsx-transpiled source (whose
// helpers, such as esbuild's keepNames wrappers, run on every closure a request creates).
execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const root = path.resolve(import.meta.dirname, '../..');
const { startServer, loadConfig, graphqlParts } = await importBuild(path.join(root, 'dist'));
const scratch = await scratchDataSet(url, 'bench');
const { schema, adminKey } = scratch;
const auth = { authorization: `Bearer ${adminKey}` };
console.log(`${quick ? 'quick run' : 'full run'}: 100k orders loaded in ${Math.round(scratch.loadMs)} ms`);

const servers: RunningServer[] = [];
const scratchRoots: string[] = [];
/** Schemas a row created beside the scratch one, dropped at the end. */
const scratchSchemas: string[] = [];
/** Starts the server in this process over the scratch schema, as served unless `overrides` say otherwise. */
async function serve(overrides: Record<string, string> = {}, projectRoot?: string) {
  const config = loadConfig(scratch.settings(overrides));
  const server = await startServer(config, pino({ level: 'warn' }), projectRoot ? { projectRoot } : {});
  servers.push(server);
  return server;
}

/** A copy of the project whose deprecation registry is empty: a server over it records no usage. */
function projectWithoutRegistry() {
  const projectRoot = path.resolve(import.meta.dirname, '../..');
  const scratch = mkdtempSync(path.join(tmpdir(), 'bench-no-recording-'));
  scratchRoots.push(scratch);
  symlinkSync(path.join(projectRoot, 'contracts'), path.join(scratch, 'contracts'));
  cpSync(path.join(projectRoot, 'generated'), path.join(scratch, 'generated'), { recursive: true });
  writeFileSync(path.join(scratch, 'generated/deprecations.json'), '{"items":[]}\n');
  return scratch;
}

// h2load's own warm-up second before each measured run; a quick run goes without it.
const grpcLoad = { seconds, warmUpSeconds: quick ? 0 : 1 };
const http = (base: string, target: Parameters<typeof wrk>[1]) => () => wrk(base, target, { seconds, connections });
/** One warm-up run of each side before its row (none in a quick run, whose ratios are too noisy to read). */
const warm = async (...runs: Array<() => Promise<Measured>>) => {
  if (!quick) for (const run of runs) await run();
};
/** A row's measurement: `rounds` of B, O, O, B; a quick run measures each side once (B, O). */
const compare = (baseline: () => Promise<Measured>, ours: () => Promise<Measured>, rounds = 1) =>
  quick ? alternate(baseline, ours, 1, ['baseline', 'ours']) : alternate(baseline, ours, rounds);

const server = await serve();
const pool = baselinePool(url, schema);
const startFigures: Array<StartFigures & { firstStartMs?: number }> = [];

try {
  if (wants('rest')) {
    // The rows with a p99 target alternate four rounds of half-length runs in a full run: as long as two
    // rounds of full runs, but each side's p99 is the median of eight runs instead of four, so a neighbour
    // that wakes up during two of them does not carry it.
    const rounds = 4;
    const rest = (base: string, path: string) => () =>
      wrk(base, { path, headers: auth }, { seconds: quick ? seconds : seconds / 2, connections });
    const bare = await startBareRest(pool);
    // The first load of both servers warms them up, in a quick run too (whose other rows go without).
    await rest(server.httpUrl, 'random-order')();
    await rest(bare.url, 'random-order')();
    // The noise floor of these rows: the bare handler against itself, measured the same way. Whatever this
    // ratio is away from 1 is the machine, not either server.
    rows.push({
      label: 'REST GET /v1/orders/{id}: noise floor',
      baseline: 'bare Hono + pg, against itself',
      measured: await compare(rest(bare.url, 'random-order'), rest(bare.url, 'random-order'), rounds),
    });
    for (const [label, target] of [
      ['REST GET /v1/orders/{id}', 'random-order'],
      ['REST GET /v1/orders?size=20', '/v1/orders?size=20'],
    ] as const) {
      const ours = rest(server.httpUrl, target);
      const baseline = rest(bare.url, target);
      await warm(ours, baseline);
      rows.push({
        label,
        baseline: 'bare Hono + pg',
        measured: await compare(baseline, ours, rounds),
        target: 0.75,
        p99Target: 1.3,
      });
    }
    bare.close();
    // The same read against a bare handler whose statements are prepared by name too: the database does the
    // same work on both sides, so this ratio is the cost of the server's own stack alone (no target).
    const bareNamed = await startBareRest(pool, { named: true });
    const ours = http(server.httpUrl, { path: 'random-order', headers: auth });
    const baseline = http(bareNamed.url, { path: 'random-order', headers: auth });
    await warm(baseline);
    rows.push({
      label: 'REST GET /v1/orders/{id}',
      baseline: 'bare Hono + pg, named statements',
      measured: await compare(baseline, ours),
    });
    bareNamed.close();
    progress('rest');
  }

  if (wants('graphql')) {
    const query =
      '{ ordersConnection(first: 20) { nodes { id status amount createdAt user { name } } pageInfo { endCursor hasNextPage } } }';
    const graphql = http(server.httpUrl, { path: '/graphql', headers: auth, body: JSON.stringify({ query }) });
    const restPage = http(server.httpUrl, { path: '/v1/orders?size=20', headers: auth });
    await warm(graphql, restPage);
    const page: Row = {
      label: 'GraphQL ordersConnection(first: 20)',
      baseline: 'REST page of 20',
      measured: await compare(restPage, graphql),
      target: 0.8,
    };
    rows.push(page);
    // GraphQL's own floor: plain Yoga over the same resolvers, loaders and SQL (no edge features).
    const typeDefs = readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8');
    const plainYoga = await startPlainYoga(server.core, graphqlParts, typeDefs);
    const plainPage = http(plainYoga.url, { path: '/graphql', headers: auth, body: JSON.stringify({ query }) });
    await warm(plainPage);
    rows.push({
      label: 'GraphQL ordersConnection(first: 20)',
      baseline: 'plain graphql-yoga, same resolvers',
      measured: await compare(plainPage, graphql),
      target: 0.85,
    });
    plainYoga.close();
    // The same page against the REST page on the demo data set (a few orders), beside the 100k above.
    const demoSchema = `${schema}_demo`;
    const demo = await serve({ DATABASE_SCHEMA: demoSchema, SEED_DEMO: 'true' });
    const demoRest = http(demo.httpUrl, { path: '/v1/orders?size=20', headers: auth });
    const demoGraphql = http(demo.httpUrl, { path: '/graphql', headers: auth, body: JSON.stringify({ query }) });
    await warm(demoRest, demoGraphql);
    rows.push({
      label: 'GraphQL ordersConnection(first: 20), demo data',
      baseline: 'REST page of 20, demo data',
      measured: await compare(demoRest, demoGraphql),
    });
    scratchSchemas.push(demoSchema);
    // The floors: an operation that reads nothing, on this server and on a bare Yoga server, and a plain
    // Node HTTP server answering the same bytes without Yoga.
    const typename = JSON.stringify({ query: '{ __typename }' });
    const [bareYoga, bareHttp] = await Promise.all([startBareYoga(), startBareHttp()]);
    const bareFloor = await compare(restPage, http(bareYoga.url, { path: '/graphql', body: typename }));
    rows.push({ label: 'GraphQL { __typename }: bare graphql-yoga', baseline: 'REST page of 20', measured: bareFloor });
    const ownFloor = await compare(restPage, http(server.httpUrl, { path: '/graphql', headers: auth, body: typename }));
    rows.push({ label: 'GraphQL { __typename }: this server', baseline: 'REST page of 20', measured: ownFloor });
    const httpFloor = await compare(restPage, http(bareHttp.url, { path: '/graphql', body: typename }));
    rows.push({
      label: 'GraphQL { __typename }, its answer: bare node:http',
      baseline: 'REST page of 20',
      measured: httpFloor,
    });
    // Per request, time is 1 / throughput: what each floor costs as a share of what a REST page costs. A
    // GraphQL page at 0.8 of the REST page may cost at most 25 % more than it. The REST page pays for HTTP
    // too, so what Yoga adds is bare Yoga's share less plain HTTP's; when that alone is over 25 %, no
    // GraphQL page on Yoga reaches 0.8 (its resolvers, DataLoader and serialisation come on top).
    const shareOf = ({ baseline, ours }: { baseline: Measured; ours: Measured }) => (100 * baseline.rps) / ours.rps;
    const yogaAdds = shareOf(bareFloor) - shareOf(httpFloor);
    const account = `bare graphql-yoga answers an operation that reads nothing at ${fixed(shareOf(bareFloor))} % of a REST page's cost and bare node:http the same bytes at ${fixed(shareOf(httpFloor))} %: Yoga adds ${fixed(yogaAdds)} %`;
    if (yogaAdds > 25) page.ceiling = `${account}, more than the 25 % a ratio of 0.8 leaves`;
    notes.push(
      `graphql: ${account}; on this server the operation costs ${fixed(shareOf(ownFloor))} %; a GraphQL page at ≥ 0.8 of the REST page may add 25 %`,
    );
    bareHttp.close();
    bareYoga.close();
    progress('graphql');
  }

  if (wants('grpc')) {
    const grpcJs = await startGrpcJsInventory(pool);
    const getStock = toBinary(GetStockRequestSchema, create(GetStockRequestSchema, { sku: 'BENCH-1' }));
    const reserve = toBinary(
      ReserveRequestSchema,
      create(ReserveRequestSchema, { orderId: '900000001', sku: 'BENCH-1', quantity: 1 }),
    );
    // The product with its internal port on each host: connect-node (GRPC_SERVER=connect, the rows without
    // a host named) and grpc-js (the default since 2026-11-29), the same handlers and wrappers on both.
    const onConnect = await serve({ GRPC_SERVER: 'connect' });
    const onGrpcJs = await serve({ GRPC_SERVER: 'grpc-js' });
    // h2load counts gRPC errors as successes: check that every server really answers first.
    for (const base of [onConnect.grpcUrl, grpcJs.url, onGrpcJs.grpcUrl]) {
      const client = createClient(Inventory, createGrpcTransport({ baseUrl: base }));
      const stock = await client.getStock({ sku: 'BENCH-1' });
      const reserved = await client.reserve({ orderId: '900000001', sku: 'BENCH-1', quantity: 1 });
      if (stock.stock?.sku !== 'BENCH-1' || reserved.reservation?.sku !== 'BENCH-1')
        throw new Error(`${base}: bad answer`);
    }
    /** Ours against grpc-js for one method. */
    const againstGrpcJs = async (label: string, method: string, message: Uint8Array) => {
      const ours = () => h2load(onConnect.grpcUrl, method, message, grpcLoad);
      const baseline = () => h2load(grpcJs.url, method, message, grpcLoad);
      await warm(ours, baseline);
      const row: Row = { label, baseline: '@grpc/grpc-js + pg', measured: await compare(baseline, ours), target: 0.6 };
      rows.push(row);
      return row;
    };
    const getStockRow = await againstGrpcJs('gRPC GetStock', 'inventory.v1.Inventory/GetStock', getStock);
    await againstGrpcJs('gRPC Reserve (idempotent retry)', 'inventory.v1.Inventory/Reserve', reserve);
    // The library's own floor: bare connect-node with the same SQL, against grpc-js and against ours.
    const floor = await startConnectNodeInventory(pool);
    const [label, method, message] = ['GetStock', 'inventory.v1.Inventory/GetStock', getStock] as const;
    const bare = () => h2load(floor.url, method, message, grpcLoad);
    const bareAgainstGrpcJs = await compare(() => h2load(grpcJs.url, method, message, grpcLoad), bare);
    rows.push({
      label: `gRPC ${label}: bare connect-node + pg`,
      baseline: '@grpc/grpc-js + pg',
      measured: bareAgainstGrpcJs,
    });
    const bareRatio = bareAgainstGrpcJs.ours.rps / bareAgainstGrpcJs.baseline.rps;
    if (bareRatio < 0.6)
      getStockRow.ceiling = `bare connect-node with the same SQL reaches ${fixed(bareRatio, 2)} of @grpc/grpc-js, below the 0.6 target`;
    rows.push({
      label: `gRPC ${label}`,
      baseline: 'bare connect-node + pg',
      measured: await compare(bare, () => h2load(onConnect.grpcUrl, method, message, grpcLoad)),
      target: 0.9,
    });
    // Both libraries with a handler that reads nothing: what each costs per call on its own.
    const [grpcJsConstant, connectConstant] = await Promise.all([startGrpcJsInventory(), startConnectNodeInventory()]);
    rows.push({
      label: `gRPC ${label}, constant answer: bare connect-node`,
      baseline: '@grpc/grpc-js, constant answer',
      measured: await compare(
        () => h2load(grpcJsConstant.url, method, message, grpcLoad),
        () => h2load(connectConstant.url, method, message, grpcLoad),
      ),
    });
    // The grpc-js host against bare grpc-js + pg, then the host's own floor: a Connect ServiceImpl with a
    // constant answer on the grpc-js host against bare grpc-js with the same constant answer.
    const hostRows: Row[] = [];
    for (const [hostLabel, hostMethod, hostMessage] of [
      ['gRPC GetStock on the grpc-js host', 'inventory.v1.Inventory/GetStock', getStock],
      ['gRPC Reserve (idempotent retry) on the grpc-js host', 'inventory.v1.Inventory/Reserve', reserve],
    ] as const) {
      // The rows with the 0.9 target alternate as the REST rows with a p99 target do: four rounds of
      // half-length runs, so one slow stretch of this shared machine weighs on one run of eight.
      const half = { ...grpcLoad, seconds: quick ? seconds : seconds / 2 };
      const ours = () => h2load(onGrpcJs.grpcUrl, hostMethod, hostMessage, half);
      const baseline = () => h2load(grpcJs.url, hostMethod, hostMessage, half);
      await warm(ours, baseline);
      const row: Row = {
        label: hostLabel,
        baseline: '@grpc/grpc-js + pg',
        measured: await compare(baseline, ours, 4),
        target: 0.9,
      };
      rows.push(row);
      hostRows.push(row);
    }
    const implConstant = await startServiceImplOnGrpcJs();
    const hostFloor = await compare(
      () => h2load(grpcJsConstant.url, method, message, grpcLoad),
      () => h2load(implConstant.url, method, message, grpcLoad),
    );
    rows.push({
      label: `gRPC ${label}, constant answer: Connect ServiceImpl on the grpc-js host`,
      baseline: '@grpc/grpc-js, constant answer',
      measured: hostFloor,
    });
    const hostRatio = hostFloor.ours.rps / hostFloor.baseline.rps;
    for (const row of hostRows) {
      if (hostRatio < 0.9 && row.measured.ours.rps / row.measured.baseline.rps < 0.9)
        row.ceiling = `a constant Connect ServiceImpl on the grpc-js host reaches ${fixed(hostRatio, 2)} of bare grpc-js (the per-call HandlerContext, Headers and codecs)`;
    }
    await implConstant.close();
    await Promise.all([grpcJsConstant.close(), connectConstant.close(), floor.close()]);
    await grpcJs.close();
    progress('grpc');
  }

  if (wants('budget')) {
    const off = await serve({ RATE_LIMIT_ENABLED: 'false' });
    const read = (base: string) => http(base, { path: 'random-order', headers: auth });
    rows.push({
      label: 'rate budget in memory',
      baseline: 'budget off',
      measured: await compare(read(off.httpUrl), read(server.httpUrl)),
      target: 0.95,
    });
    const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    const redisUp = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (redisUp) {
      const shared = await serve({ REDIS_URL: redisUrl });
      rows.push({
        label: 'rate budget in Redis',
        baseline: 'budget off',
        measured: await compare(read(off.httpUrl), read(shared.httpUrl)),
        target: 0.95,
      });
    } else notes.push(`Redis at ${redisUrl} did not answer: the Redis budget row is skipped`);
    progress('budget');
  }

  if (wants('recording')) {
    const unrecorded = await serve({}, projectWithoutRegistry());
    const read = (base: string) => http(base, { path: 'random-order', headers: auth });
    rows.push({
      label: 'deprecation usage recording',
      baseline: 'recording off',
      measured: await compare(read(unrecorded.httpUrl), read(server.httpUrl)),
      target: 0.95,
    });
    progress('recording');
  }

  if (wants('shapes')) {
    // The request-shape record (docs/decisions.md §13) on, as served, against the same server with it off:
    // both started for this row, so neither carries the heap and caches of the rows before it.
    const off = await serve({ SHAPES_RECORD: 'false' });
    const on = await serve();
    const query =
      '{ ordersConnection(first: 20) { nodes { id status amount createdAt user { name } } pageInfo { endCursor hasNextPage } } }';
    for (const [label, target] of [
      ['REST GET /v1/orders/{id}', { path: 'random-order', headers: auth }],
      ['REST GET /v1/orders?size=20', { path: '/v1/orders?size=20', headers: auth }],
      ['GraphQL page of 20', { path: '/graphql', headers: auth, body: JSON.stringify({ query }) }],
    ] as const) {
      const [baseline, ours] = [http(off.httpUrl, target), http(on.httpUrl, target)];
      await warm(baseline, ours);
      rows.push({
        label: `request-shape record: ${label}`,
        baseline: 'record off',
        // Two rounds: the cost sought is a few per cent, about the noise of one.
        measured: await compare(baseline, ours, 2),
        target: 0.95,
      });
    }
    const getStock = toBinary(GetStockRequestSchema, create(GetStockRequestSchema, { sku: 'BENCH-1' }));
    const method = 'inventory.v1.Inventory/GetStock';
    const [baseline, ours] = [off.grpcUrl, on.grpcUrl].map((url) => () => h2load(url, method, getStock, grpcLoad));
    await warm(baseline as () => Promise<Measured>, ours as () => Promise<Measured>);
    rows.push({
      label: 'request-shape record: gRPC GetStock',
      baseline: 'record off',
      // Four rounds: one h2load round moves ±6 % here between two identical servers.
      measured: await compare(baseline as () => Promise<Measured>, ours as () => Promise<Measured>, 4),
      target: 0.95,
    });
    progress('shapes');
  }

  if (wants('tracing')) {
    const reads = [
      ['REST GET /v1/orders/{id}', 'random-order'],
      ['REST GET /v1/orders?size=20', '/v1/orders?size=20'],
    ] as const;
    const {
      result: cpu,
      exports,
      exportedMiB,
    } = await withTracingSides(scratch.settings(), async (sides) => {
      const lines: string[] = [];
      for (const [label, target] of reads) {
        const tally = (): CpuTally => ({ cpuSeconds: 0, requests: 0 });
        const tallies = { bare: tally(), off: tally(), on: tally(), tenth: tally() };
        const read = (side: keyof typeof sides, count = true) =>
          sides[side].counted(
            http(sides[side].url, { path: target, headers: auth }),
            seconds,
            count ? tallies[side] : tally(),
          );
        await warm(read('bare', false), read('off', false), read('on', false), read('tenth', false));
        const sameOff = await compare(read('bare'), read('off'), 2);
        rows.push({ label: `${label}: tracing off`, baseline: 'no --import entry', measured: sameOff, target: 0.95 });
        // No target: the price of tracing, for an operator choosing a sampling ratio.
        const all = await compare(read('off'), read('on'), 2);
        rows.push({ label: `${label}: tracing on, all sampled`, baseline: 'tracing off', measured: all });
        const tenth = await compare(read('off'), read('tenth'), 2);
        rows.push({ label: `${label}: tracing on, a tenth sampled`, baseline: 'tracing off', measured: tenth });
        const [bare, off, on, sampled] = [tallies.bare, tallies.off, tallies.on, tallies.tenth].map(
          microsPerRequest,
        ) as [number, number, number, number];
        lines.push(
          `${label}: server CPU per request ${fixed(bare)} µs without the entry; tracing off ${fixed(off)} µs (${fixed(off / bare, 2)} of that); tracing on, all sampled ${fixed(on)} µs (${fixed(on / off, 2)} of off), a tenth sampled ${fixed(sampled)} µs (${fixed(sampled / off, 2)} of off)`,
        );
      }
      return lines;
    });
    for (const line of cpu) notes.push(`tracing: ${line}`);
    notes.push(`tracing: the OTLP sink received ${exports} exports, ${fixed(exportedMiB, 1)} MiB`);
    progress('tracing');
  }

  if (wants('cluster')) {
    // Two worker processes sharing the port (node:cluster) against one process, over the same database on
    // the same two cores as wrk and PostgreSQL: what WORKERS=2 adds on one machine (no target).
    const single = await startBuilt(scratch.settings());
    const cluster = await startBuilt(scratch.settings({ WORKERS: '2' }));
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000)); // ready answers once the first worker serves
      const read = (base: string) => http(base, { path: 'random-order', headers: auth });
      await warm(read(single.url), read(cluster.url));
      rows.push({
        label: 'REST GET /v1/orders/{id}: WORKERS=2',
        baseline: 'one process',
        measured: await compare(read(single.url), read(cluster.url)),
      });
    } finally {
      await Promise.all([stopBuilt(single.child), stopBuilt(cluster.child)]);
    }
    progress('cluster');
  }

  if (wants('events')) {
    const events = await benchEvents({ url, quick, seconds, connections, compare, warm });
    rows.push(...events.rows);
    notes.push(...events.notes);
    progress('events');
  }

  // From here on, child processes run asynchronously: a synchronous one would stop this process's event
  // loop, and with it the servers in it, whose last requests of the previous row would wait out the pool's
  // 5 s and answer 503.
  const runChild = promisify(execFile);
  if (wants('paging')) {
    const { stdout: output } = await runChild('npx', ['tsx', path.join(import.meta.dirname, 'paging.ts')], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: url, ROUNDS: quick ? '10' : '200' },
    });
    for (const line of output.split('\n').filter((text) => text.startsWith('sort '))) notes.push(`paging: ${line}`);
    progress('paging');
  }

  if (wants('start')) {
    const loadSeconds = quick ? 1 : 60;
    startFigures.push(await measureEmbeddedStart(adminKey, loadSeconds));
    startFigures.push(
      await measureStart(
        'PostgreSQL (100k orders)',
        {
          DATABASE_URL: url,
          DATABASE_SCHEMA: schema,
          ADMIN_API_KEY: adminKey,
          SEED_DEMO: 'false',
          RATE_LIMIT_ENABLED: 'false',
        },
        adminKey,
        loadSeconds,
      ),
    );
    progress('start');
  }
} finally {
  for (const running of servers) await running.close();
  for (const extra of scratchSchemas) await pool.query(`DROP SCHEMA IF EXISTS ${extra} CASCADE`);
  await pool.end();
  for (const scratch of scratchRoots) rmSync(scratch, { recursive: true, force: true });
  await scratch.drop();
}

console.log(
  `\n${seconds} s per load run, ${quick ? 'each side once, no warm-up (a check that every row runs: too noisy to read)' : `baseline and ours alternated (B, O, O, B; the REST rows with a p99 target, their noise floor and the grpc-js host rows: four rounds of ${seconds / 2} s runs)`}: mean throughput, median p99; wrk -t2 -c${connections}; h2load -c4 -m16\n`,
);
console.log(
  '| comparison | baseline | baseline req/s | p99 ms | ours req/s | p99 ms | ratio | target | p99 ratio | target |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
const misses: string[] = [];
let floors = 0;
for (const { label, baseline, measured, target, p99Target, ceiling } of rows) {
  const ratio = measured.ours.rps / measured.baseline.rps;
  const p99Ratio = measured.ours.p99ms / measured.baseline.p99ms;
  const met = (target === undefined || ratio >= target) && (p99Target === undefined || p99Ratio <= p99Target);
  if (target === undefined) floors++;
  else if (!met)
    misses.push(
      `- ${quick ? '(not judged) ' : ''}${label} against ${baseline}, ${fixed(ratio, 2)} (p99 ${fixed(p99Ratio, 2)}): ${
        ceiling ? `a ceiling measured in this run: ${ceiling}` : 'missed, with no ceiling measured'
      }`,
    );
  console.log(
    `| ${label} | ${baseline} | ${fixed(measured.baseline.rps)} | ${fixed(measured.baseline.p99ms, 1)} | ${fixed(
      measured.ours.rps,
    )} | ${fixed(measured.ours.p99ms, 1)} | **${fixed(ratio, 2)}** | ${target === undefined ? 'floor' : `≥ ${target}`} | ${fixed(p99Ratio, 2)} | ${
      p99Target === undefined ? '—' : `≤ ${p99Target}`
    } |`,
  );
}
if (startFigures.length > 0) {
  console.log('\n| start | ready ms | RSS after start MiB | RSS after mixed load MiB |');
  console.log('|---|---:|---:|---:|');
  for (const figures of startFigures)
    console.log(
      `| ${figures.label}${figures.firstStartMs ? ` (first start: ${fixed(figures.firstStartMs)} ms)` : ''} | ${fixed(
        figures.readyMs,
      )} | ${fixed(figures.rssAfterStartMiB)} | ${fixed(figures.rssAfterLoadMiB)} |`,
    );
}
for (const note of notes) console.log(note);
console.log(
  `\n${rows.length - floors - misses.length} of ${rows.length - floors} ratios at or past their target${
    quick ? ' (a quick run: one-second loads check that every row and every line below runs; they judge nothing)' : ''
  }`,
);
for (const miss of misses) console.log(miss);
