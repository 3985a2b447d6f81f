/**
 * REST benchmark: the full server (validation, auth, problem mapping, logging at `warn`) against a bare
 * Hono handler that runs the same SQL with nothing else, both over one PostgreSQL with 100k orders, loaded
 * in turn with wrk on loopback. Prints requests/s, p99 and the ratio for `GET /v1/orders/{id}` (random
 * ids) and a 20-item list page.
 *
 *   npm run bench:rest          # DATABASE_URL defaults to the local server's `test` database
 *   DURATION=20 CONNECTIONS=32 npm run bench:rest
 *   BENCH_RATE_LIMIT=off|memory|redis npm run bench:rest   # the rate budget (default memory, as served);
 *                               # the key's budget is set too high to refuse, so every request pays for the check
 *   USAGE_RECORDING=off npm run bench:rest     # the server with an empty deprecation registry: nothing is
 *                                             # counted per caller (the default is on)
 *   USAGE_RECORDING=compare npm run bench:rest # also both servers side by side, GET by id in alternating
 *                                             # 5 s rounds (on, off, off, on, …): the cost of recording
 *
 * Needs `wrk` (Debian: apt-get install wrk). Uses a scratch schema, dropped at the end.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { createPgDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { loadDataset } from './dataset.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 32);
const schema = `bench_${randomBytes(4).toString('hex')}`;
const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
const rateLimit = process.env.BENCH_RATE_LIMIT ?? 'memory';
if (!['off', 'memory', 'redis'].includes(rateLimit)) throw new Error('BENCH_RATE_LIMIT is off, memory or redis');

try {
  execFileSync('wrk', ['--version'], { stdio: 'ignore' });
} catch (error) {
  if ((error as { code?: string }).code === 'ENOENT') {
    console.error('wrk is not installed (Debian: apt-get install wrk).');
    process.exit(2);
  }
}

const setup = await createPgDatabase(url, { schema });
await migrate(setup);
console.log('loading 100k orders…');
await loadDataset(setup);
await setup.close();

// Recording off: the same server over a copy of the project whose registry is empty.
const mode = process.env.USAGE_RECORDING ?? 'on';
const recording = mode !== 'off';
const projectRoot = path.resolve(import.meta.dirname, '../..');
const scratchRoot = mode === 'on' ? undefined : mkdtempSync(path.join(tmpdir(), 'bench-no-recording-'));
if (scratchRoot) {
  symlinkSync(path.join(projectRoot, 'contracts'), path.join(scratchRoot, 'contracts'));
  cpSync(path.join(projectRoot, 'generated'), path.join(scratchRoot, 'generated'), { recursive: true });
  writeFileSync(path.join(scratchRoot, 'generated/deprecations.json'), '{"items":[]}\n');
}
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  GRPC_PORT: '0',
  DATABASE_URL: url,
  DATABASE_SCHEMA: schema,
  ADMIN_API_KEY: adminKey,
  SEED_DEMO: 'false',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_ENABLED: rateLimit === 'off' ? 'false' : 'true',
  RATE_LIMIT_ADMIN: '1000000000',
  RATE_LIMIT_KEY_PREFIX: `bench-${schema}`,
  ...(rateLimit === 'redis' ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
});
const server = await startServer(config, pino({ level: 'warn' }), recording ? {} : { projectRoot: scratchRoot });
const unrecorded =
  mode === 'compare' ? await startServer(config, pino({ level: 'warn' }), { projectRoot: scratchRoot }) : undefined;

// The baseline: the same statements through a pool of the same size, no validation, auth or mapping.
const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` });
const bare = new Hono();
bare.get('/v1/orders/:id', async (c) => {
  const { rows } = await pool.query('SELECT * FROM orders WHERE id = $1', [Number(c.req.param('id'))]);
  const items = await pool.query('SELECT * FROM order_items WHERE order_id = ANY($1::bigint[]) ORDER BY order_id, id', [
    rows.map((row) => row.id),
  ]);
  return c.json({ ...rows[0], items: items.rows });
});
bare.get('/v1/orders', async (c) => {
  const { rows } = await pool.query('SELECT o.* FROM orders o ORDER BY o.created_at DESC, o.id DESC LIMIT $1', [21]);
  const items = await pool.query('SELECT * FROM order_items WHERE order_id = ANY($1::bigint[]) ORDER BY order_id, id', [
    rows.map((row) => row.id),
  ]);
  return c.json({
    items: rows.slice(0, 20).map((row) => ({ ...row, items: items.rows.filter((i) => i.order_id === row.id) })),
  });
});
const bareServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const started = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
});
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

const script = path.join(tmpdir(), `bench-${schema}.lua`);
writeFileSync(
  script,
  `math.randomseed(os.time())
local authorization = "Bearer ${adminKey}"
request = function()
  local target = os.getenv("BENCH_PATH")
  if target == "random-order" then target = "/v1/orders/" .. math.random(1, 100000) end
  return wrk.format("GET", target, { ["Authorization"] = authorization })
end
`,
);

// Asynchronous: both servers live in this process, so its event loop must keep running while wrk loads them.
async function load(base: string, target: string, seconds = duration) {
  const { stdout: output } = await promisify(execFile)(
    'wrk',
    ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, base],
    { encoding: 'utf8', env: { ...process.env, BENCH_PATH: target } },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(output);
  const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : Number.NaN;
  if (!(rps > 0)) throw new Error(`wrk reported no throughput:\n${output}`);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1];
  if (errors) throw new Error(`${base}${target}: ${errors} non-2xx responses`);
  return { rps, p99ms };
}

try {
  console.log(
    `wrk: 2 threads, ${connections} connections, ${duration} s per run; server logs at warn; usage recording ${recording ? 'on' : 'off'}; rate budget: ${rateLimit}\n`,
  );
  console.log('endpoint                      baseline req/s  p99 ms |   server req/s  p99 ms |  ratio');
  for (const [label, target] of [
    ['GET /v1/orders/{id}', 'random-order'],
    ['GET /v1/orders (20 items)', '/v1/orders?size=20'],
  ] as const) {
    await load(server.httpUrl, target); // warm up both before measuring
    await load(bareUrl, target);
    const baseline = await load(bareUrl, target);
    const full = await load(server.httpUrl, target);
    console.log(
      `${label.padEnd(29)} ${baseline.rps.toFixed(0).padStart(14)} ${baseline.p99ms.toFixed(1).padStart(7)} | ${full.rps
        .toFixed(0)
        .padStart(14)} ${full.p99ms.toFixed(1).padStart(7)} | ${(full.rps / baseline.rps).toFixed(2).padStart(6)}`,
    );
  }
  if (unrecorded) {
    // Alternating rounds on two servers in this process, so that drift in the machine's load hits both.
    const rounds: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < 6; round++) {
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const which of order) {
        const url = which === 'on' ? server.httpUrl : unrecorded.httpUrl;
        rounds[which].push((await load(url, 'random-order', 5)).rps);
      }
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    console.log(
      `\nGET /v1/orders/{id}, usage recording on vs off, 6 alternating 5 s rounds: ${mean(rounds.on).toFixed(0)} vs ${mean(
        rounds.off,
      ).toFixed(0)} req/s, on/off ${(mean(rounds.on) / mean(rounds.off)).toFixed(3)}` +
        `\n  on:  ${rounds.on.map((value) => value.toFixed(0)).join(' ')}\n  off: ${rounds.off.map((value) => value.toFixed(0)).join(' ')}`,
    );
  }
} finally {
  await unrecorded?.close();
  bareServer.close();
  await pool.end();
  await server.close();
  if (scratchRoot) rmSync(scratchRoot, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
