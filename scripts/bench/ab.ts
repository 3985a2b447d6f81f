/**
 * Compares two builds of the server on one REST target, in one process over one data set, alternating
 * A, B, B, A for `ROUNDS` rounds, so a change worth a few microseconds per request shows through the
 * machine's noise: `npx tsx scripts/bench/ab.ts <distA> <distB> [rest-id|rest-page|rest-write]`, where each dist is
 * a copy of `dist/` made by `npm run build`, kept inside the checkout so that it finds `node_modules` and
 * the contracts (for example `cp -r dist profiles/dist-before` before a change; `profiles/` is ignored).
 * `rest-write` POSTs `/v1/orders` as the bench's events row does (a random user and product, no
 * Idempotency-Key), so a build from before a change to the write path can be compared with one after it
 * (or one build with and without what a migration adds: `A_SCHEMA_SQL` is run on A's own data set first);
 * `rest-product` and `graphql-product` create a product (a random SKU) over REST and GraphQL, and
 * `grpc-reserve` loads the Inventory's `Reserve` with h2load (the same line each time: its idempotent path),
 * `grpc-getstock` its `GetStock`.
 * Prints each round's throughput and p99 ratio (B / A) and their medians. Environment: `DATABASE_URL`,
 * `DURATION` (seconds per run, default 6), `ROUNDS` (default 3), `CONNECTIONS` (default 32), and `A_ENV` /
 * `B_ENV`: settings for one side only (`SHAPES_RECORD=false,LOG_LEVEL=error`), to weigh a setting on one build.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import pg from 'pg';
import { pino } from 'pino';
import { GetStockRequestSchema, ReserveRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/compose/server.js';
import { alternate, h2load, median, wrk } from './load.js';
import { importBuild, scratchDataSet } from './scratch.js';

const TARGETS = [
  'rest-id',
  'rest-page',
  'rest-write',
  'rest-product',
  'graphql-product',
  'grpc-reserve',
  'grpc-getstock',
];
const [distA, distB, target = 'rest-id'] = process.argv.slice(2);
if (!distA || !distB || !TARGETS.includes(target)) {
  console.error(`usage: npx tsx scripts/bench/ab.ts <distA> <distB> [${TARGETS.join('|')}]`);
  process.exit(2);
}
const seconds = Number(process.env.DURATION ?? 6);
const rounds = Number(process.env.ROUNDS ?? 3);
const connections = Number(process.env.CONNECTIONS ?? 32);
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const scratch = await scratchDataSet(url, 'ab');
// `A_SCHEMA_SQL`: A gets a data set of its own, changed by this SQL first (to weigh what a migration adds
// to the write path: the same build on both, A with the migration's triggers or indexes taken off).
const scratchA = process.env.A_SCHEMA_SQL ? await scratchDataSet(url, 'ab_a') : scratch;
if (process.env.A_SCHEMA_SQL) {
  const setup = new pg.Client({ connectionString: url, options: `-c search_path=${scratchA.schema}` });
  await setup.connect();
  await setup.query(process.env.A_SCHEMA_SQL);
  await setup.end();
}

/** `A_ENV` or `B_ENV` (`NAME=value,NAME=value`) as settings. */
const sideSettings = (text = ''): Record<string, string> =>
  Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );

/** Starts the server of one build over its scratch schema, with a rate budget of its own. */
async function start(dist: string, name: string, data = scratch): Promise<RunningServer> {
  const { startServer, loadConfig } = await importBuild(dist);
  const own = sideSettings(name === 'a' ? process.env.A_ENV : process.env.B_ENV);
  return startServer(
    loadConfig(data.settings({ RATE_LIMIT_KEY_PREFIX: `ab-${data.schema}-${name}`, ...own })),
    pino({ level: 'warn' }),
  );
}

const servers = [await start(distA, 'a', scratchA), await start(distB, 'b')];
const paths: Record<string, string> = {
  'rest-page': '/v1/orders?size=20',
  'rest-write': 'new-order',
  'rest-product': 'new-product',
  'graphql-product': 'new-product-graphql',
};
const reserve = toBinary(
  ReserveRequestSchema,
  create(ReserveRequestSchema, { orderId: '990001', sku: 'BENCH-1', quantity: 1 }),
);
const getStock = toBinary(GetStockRequestSchema, create(GetStockRequestSchema, { sku: 'BENCH-1' }));
const load = (server: RunningServer) => () =>
  target === 'grpc-reserve'
    ? h2load(server.grpcUrl, 'inventory.v1.Inventory/Reserve', reserve, { seconds })
    : target === 'grpc-getstock'
      ? h2load(server.grpcUrl, 'inventory.v1.Inventory/GetStock', getStock, { seconds })
      : wrk(
          server.httpUrl,
          {
            path: paths[target] ?? 'random-order',
            headers: { authorization: `Bearer ${(server === servers[0] ? scratchA : scratch).adminKey}` },
          },
          { seconds, connections },
        );
const [a, b] = servers as [RunningServer, RunningServer];
try {
  await load(a)();
  await load(b)();
  const ratios: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const { baseline, ours } = await alternate(load(a), load(b));
    ratios.push(ours.rps / baseline.rps);
    p99s.push(ours.p99ms / baseline.p99ms);
    console.log(
      `round ${round + 1}: A ${baseline.rps.toFixed(0)} req/s p99 ${baseline.p99ms.toFixed(1)} ms, B ${ours.rps.toFixed(0)} req/s p99 ${ours.p99ms.toFixed(1)} ms: B/A ${(ours.rps / baseline.rps).toFixed(3)}, p99 ${(ours.p99ms / baseline.p99ms).toFixed(2)}`,
    );
  }
  console.log(`median B/A throughput ${median(ratios).toFixed(3)}, p99 ${median(p99s).toFixed(2)}`);
} finally {
  for (const server of servers) await server.close();
  await scratch.drop();
  if (scratchA !== scratch) await scratchA.drop();
}
process.exit(0);
