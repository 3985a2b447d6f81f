/**
 * Compares two builds of the server on one REST target, in one process over one data set, alternating
 * A, B, B, A for `ROUNDS` rounds, so a change worth a few microseconds per request shows through the
 * X
 * a copy of `dist/` made by `npm run build` (for example `cp -r dist /tmp/dist-before` before a change).
 * Prints each round's throughput and p99 ratio (B / A) and their medians. Environment: `DATABASE_URL`,
 * `DURATION` (seconds per run, default 6), `ROUNDS` (default 3), `CONNECTIONS` (default 32).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import type { RunningServer } from '../../src/server.js';
import { createPgDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { loadDataset } from './dataset.js';
import { alternate, wrk } from './load.js';

const [distA, distB, target = 'rest-id'] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: npx tsx scripts/bench/ab.ts <distA> <distB> [rest-id|rest-page]');
  process.exit(2);
}
const seconds = Number(process.env.DURATION ?? 6);
const rounds = Number(process.env.ROUNDS ?? 3);
const connections = Number(process.env.CONNECTIONS ?? 32);
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ab_${randomBytes(4).toString('hex')}`;
const adminKey = `ab-admin-${randomBytes(12).toString('hex')}`;
const setup = await createPgDatabase(url, { schema });
await migrate(setup);
await loadDataset(setup);
await setup.close();

/** Starts the server of one build over the scratch schema. */
async function start(dist: string, name: string): Promise<RunningServer> {
  const from = (file: string) => import(path.resolve(dist, 'src', file));
  const { startServer } = (await from('server.js')) as typeof import('../../src/server.js');
  const { loadConfig } = (await from('config.js')) as typeof import('../../src/config.js');
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    DATABASE_URL: url,
    DATABASE_SCHEMA: schema,
    ADMIN_API_KEY: adminKey,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ADMIN: '1000000000',
    RATE_LIMIT_KEY_PREFIX: `ab-${name}`,
  });
  return startServer(config, pino({ level: 'warn' }));
}

const servers = [await start(distA, 'a'), await start(distB, 'b')];
const path_ = target === 'rest-page' ? '/v1/orders?size=20' : 'random-order';
const load = (server: RunningServer) => () =>
  wrk(server.httpUrl, { path: path_, headers: { authorization: `Bearer ${adminKey}` } }, { seconds, connections });
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
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;
  console.log(`median B/A throughput ${median(ratios).toFixed(3)}, p99 ${median(p99s).toFixed(2)}`);
} finally {
  for (const server of servers) await server.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
process.exit(0);
