/**
 * `npm run scale:check [-- --seconds N]`: three built instances (`node dist/src/main.js`) on the local
 * PostgreSQL (a fresh database) and Redis, behind HAProxy with deploy/haproxy/haproxy.cfg (addresses
 * replaced); a mixed load through HAProxy (orders with an Idempotency-Key, retried with it; reads; gRPC
 * GetStock and an idempotent Reserve through the h2c frontend) while one instance is killed with SIGKILL
 * and restarted and another is stopped with SIGTERM (it drains) and restarted. Prints the figures of
 * docs/operating.md ("The scale check") and exits 1 when a rule fails (2 when HAProxy or Redis is missing).
 *
 * Environment: SCALE_CHECK_DATABASE_URL (a server and database to create the scratch database from,
 * default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (default redis://127.0.0.1:6379).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { brownoutOnEveryInstance, burstOneKey, checkDatabase } from './checks.js';
import { classifyFailures, line, p99, retriedPlacements } from './figures.js';
import { localHaproxyConfig, SERVED_BY } from './haproxy-config.js';
import { cpuSeconds, createInstance, type Instance, waitReady } from './instances.js';
import { type LoadRecord, runLoad } from './load.js';
import { projectWithDeprecations } from './project.js';
import { freePorts, prepareTarget } from './target.js';

const argument = process.argv.indexOf('--seconds');
const seconds = argument > 0 ? Number(process.argv[argument + 1]) : 60;
if (!(seconds >= 10)) throw new Error('--seconds must be 10 or more');
const root = path.resolve(import.meta.dirname, '../..');
const serverUrl = process.env.SCALE_CHECK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LEASE_SECONDS = 5;
const BUDGET = { limit: 100, windowSeconds: 60 };
const BROWNOUT_REFRESH_MS = 500;
const began = Date.now();

try {
  execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
} catch {
  console.error('haproxy is not installed (Debian: apt-get install -y haproxy)');
  process.exit(2);
}
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
if (
  !(await redis.connect().then(
    () => redis.ping(),
    () => undefined,
  ))
) {
  console.error(`Redis at ${redisUrl} does not answer (set REDIS_URL; the shared rate budget is part of the check)`);
  process.exit(2);
}
redis.disconnect();
execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' });

const database = `scale_check_${randomBytes(4).toString('hex')}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${database}` }).toString();
const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
};
await admin(`CREATE DATABASE ${database}`);
const scratch = mkdtempSync(path.join(tmpdir(), 'scale-check-'));
const project = projectWithDeprecations();
const adminKey = `scale-check-admin-${randomBytes(12).toString('hex')}`;
const env = {
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  RATE_LIMIT_KEY_PREFIX: `order-api:${database}`,
  RATE_LIMIT_ADMIN: '1000000000',
  RATE_LIMIT_CUSTOMER: String(BUDGET.limit),
  RATE_LIMIT_WINDOW_SECONDS: String(BUDGET.windowSeconds),
  ADMIN_API_KEY: adminKey,
  CURSOR_SECRET: randomBytes(32).toString('hex'),
  IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
  // As an operator behind HAProxy sets it: not ready for 5 s before the drain (its checks run every 1 s and mark an
  // instance down after 2 failures; 3 s proved too short on a loaded machine).
  SHUTDOWN_DELAY_MS: '5000',
  BROWNOUT_NOTICE_DAYS: '0',
  BROWNOUT_REFRESH_MS: String(BROWNOUT_REFRESH_MS),
  SEED_DEMO: 'false',
  LOG_LEVEL: 'warn',
};
const ports = await freePorts(8);
const instances = [1, 2, 3].map((index) =>
  createInstance(
    project.root,
    `app${index}`,
    { httpPort: ports[2 * index] as number, grpcPort: ports[2 * index + 1] as number },
    env,
    path.join(scratch, `app${index}.log`),
  ),
);
const [app1, app2, app3] = instances as [Instance, Instance, Instance];
const haproxyCfg = path.join(scratch, 'haproxy.cfg');
writeFileSync(
  haproxyCfg,
  localHaproxyConfig({ httpPort: ports[0] as number, grpcPort: ports[1] as number, instances }),
);
const haproxy = spawn('haproxy', ['-db', '-f', haproxyCfg], { stdio: ['ignore', 'ignore', 'inherit'] });
const lbUrl = `http://127.0.0.1:${ports[0]}`;
let exitCode = 1;

try {
  await Promise.all(instances.map((instance) => instance.start()));
  await waitForAllInRotation(lbUrl, instances.length);
  const startedInSeconds = (Date.now() - began) / 1000;
  const target = await prepareTarget(lbUrl, `http://127.0.0.1:${ports[1]}`, adminKey);
  const record: LoadRecord = { attempts: [], placements: [], minAvailable: Number.POSITIVE_INFINITY };
  const cpuPhase = Math.max(2, Math.round(seconds * 0.12));
  const warmUp = Math.max(2, Math.round(seconds * 0.1));
  const faultPhase = seconds - 2 * cpuPhase - warmUp;
  const never = () => Number.POSITIVE_INFINITY;
  const forSeconds = (duration: number) => {
    const until = Date.now() + duration * 1000;
    return () => Date.now() >= until;
  };
  const mix = { writers: 4, readers: 4, grpcCallers: 2 };

  // CPU per request: the mix against one instance, then the same mix against each of three at once (the
  // same clients per instance: a process answering fewer requests at a time pays more for each), all
  // directly (HAProxy's share is not the instances' to pay), after warming all three up through HAProxy
  // (a cold process pays for its JIT and its pool's first statements).
  const tripled = { writers: 3 * mix.writers, readers: 3 * mix.readers, grpcCallers: 3 * mix.grpcCallers };
  await runLoad(target, tripled, forSeconds(warmUp), never, record);
  const directTo = (instance: Instance) => ({
    ...target,
    httpUrl: instance.httpUrl,
    grpcUrl: `http://127.0.0.1:${instance.grpcPort}`,
  });
  const measure = (measured: Instance[]) =>
    measureCpu(measured, record, () =>
      Promise.all(measured.map((instance) => runLoad(directTo(instance), mix, forSeconds(cpuPhase), never))),
    );
  const cpuOne = await measure([app1]);
  const cpuThree = await measure(instances);

  // The faults, under the same mix: SIGKILL app2 and restart it; SIGTERM app3 (it drains) and restart it.
  const loadStart = Date.now();
  const loadEnd = loadStart + faultPhase * 1000;
  const events = {
    killAt: 0,
    killedBackAt: 0,
    termAt: 0,
    termExit: '' as number | string,
    termExitMs: 0,
    termBackAt: 0,
  };
  const load = runLoad(
    target,
    mix,
    () => Date.now() >= loadEnd,
    () => loadEnd + (LEASE_SECONDS + 15) * 1000,
    record,
  );
  const at = (share: number) => sleep(Math.max(0, loadStart + share * faultPhase * 1000 - Date.now()));
  const killed = (async () => {
    await at(0.15);
    events.killAt = Date.now();
    await app2.stop('SIGKILL');
    await at(0.25);
    await app2.start();
    events.killedBackAt = Date.now();
  })();
  const terminated = (async () => {
    await at(0.45);
    events.termAt = Date.now();
    events.termExit = await app3.stop('SIGTERM');
    events.termExitMs = Date.now() - events.termAt;
    await app3.start();
    events.termBackAt = Date.now();
  })();
  await Promise.all([load, killed, terminated]);
  const loadSeconds = (Date.now() - loadStart) / 1000;
  await waitForAllInRotation(lbUrl, instances.length);

  const budget = await burstOneKey(lbUrl, adminKey, target.userId, target.productId, BUDGET);
  const brownout = await brownoutOnEveryInstance(lbUrl, adminKey, project.brownoutItem, instances, BROWNOUT_REFRESH_MS);
  const db = await checkDatabase(databaseUrl, record.placements, target);

  const faultAttempts = record.attempts.filter((attempt) => attempt.start >= loadStart);
  const failures = classifyFailures(faultAttempts, { name: app2.name, at: events.killAt });
  const retries = retriedPlacements(record.placements);
  const inUse = record.attempts.filter((attempt) => attempt.status === 409).length;
  const cpuRatios = instances.map(
    (instance) =>
      (cpuThree.perRequest.get(instance.name) ?? Number.NaN) / (cpuOne.perRequest.get(app1.name) ?? Number.NaN),
  );
  const rules = [
    line('acknowledged orders lost', `${db.lost} of ${db.acknowledged}`, db.lost === 0),
    line('orders duplicated (two orders for one Idempotency-Key)', `${db.duplicated}`, db.duplicated === 0),
    line(
      'stock exact: units reserved = units in orders, on hand kept',
      `${db.reserved} = ${db.ordered}, on hand ${db.onHand} of 1000000, ${db.orphanHeld} held for no order`,
      db.reserved === db.ordered && db.onHand === 1_000_000 && db.orphanHeld === 0,
    ),
    line('stock never negative: least available GetStock answered', `${record.minAvailable}`, record.minAvailable >= 0),
    line(
      'idempotent gRPC Reserve of one line, reserved',
      `${db.reserveReserved} (1 expected)`,
      db.reserveReserved === 1,
    ),
    line(
      "failed requests outside the killed instance's in-flight set",
      `${failures.outside.length} (${failures.inKilledSet.length} inside; ${faultAttempts.length} requests)`,
      failures.outside.length === 0,
    ),
    line(
      'placements retried with their Idempotency-Key that got their order',
      `${retries.gotTheirOrder} of ${retries.retried} (${inUse} answers 409 IDEMPOTENCY_KEY_IN_USE on the way)`,
      retries.gotTheirOrder === retries.retried,
    ),
    line(
      `rate budget: one customer key's burst through ${budget.instancesReached} instances`,
      `${budget.accepted} accepted, ${budget.refused} refused of ${budget.sent}; one shared budget allows ${budget.allowed}, three would allow ${3 * BUDGET.limit}`,
      budget.accepted <= budget.allowed && budget.accepted >= BUDGET.limit && budget.instancesReached === 3,
    ),
    line(
      `brownout window of ${project.brownoutItem}: 410 BROWNOUT from every instance`,
      `${brownout.held.length} of ${instances.length}${brownout.missed.length ? ` (missed: ${brownout.missed.join(', ')})` : ''}`,
      brownout.before && brownout.missed.length === 0,
    ),
  ];
  const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : 'n/a (no request in the window)');
  const measurements = [
    line(
      'p99 before the kill / during it (until app2 serves again) / after',
      [
        p99(faultAttempts, loadStart, events.killAt),
        p99(faultAttempts, events.killAt, events.killedBackAt),
        p99(faultAttempts, events.killedBackAt, loadEnd),
      ]
        .map(ms)
        .join(' / '),
    ),
    line(
      'CPU per request: one instance alone; each of three (ratio)',
      `${cpuOne.perRequest.get(app1.name)?.toFixed(0)} µs; ${instances
        .map(
          (instance, index) =>
            `${instance.name} ${cpuThree.perRequest.get(instance.name)?.toFixed(0)} µs (${cpuRatios[index]?.toFixed(2)})`,
        )
        .join(', ')}`,
      cpuRatios.every((ratio) => Math.abs(ratio - 1) <= 0.1),
    ),
    line(
      'SIGTERM to app3: exit code, drain time',
      `${events.termExit}, ${ms(events.termExitMs)}; back in ${ms(events.termBackAt - events.termAt)}`,
    ),
    line('SIGKILL to app2: restarted and ready after', ms(events.killedBackAt - events.killAt)),
  ];
  console.log(
    `\nscale check: 3 instances behind HAProxy over PostgreSQL (${database}) and Redis; started in ${startedInSeconds.toFixed(1)} s; ` +
      `warm-up ${warmUp} s, CPU phases ${cpuPhase} s each, fault load ${loadSeconds.toFixed(1)} s (${faultAttempts.length} requests: ` +
      `4 writers, 4 readers, 2 gRPC callers); Idempotency lease ${LEASE_SECONDS} s; total ${((Date.now() - began) / 1000).toFixed(1)} s\n`,
  );
  for (const text of rules) console.log(text);
  console.log('\nmeasured (machine-dependent, not judged):');
  for (const text of measurements) console.log(text);
  for (const attempt of [...failures.inKilledSet, ...failures.outside].slice(0, 10)) {
    const since = (moment: number) => `${attempt.start - moment} ms`;
    console.log(
      `  ${failures.outside.includes(attempt) ? 'unexpected' : 'in the killed set'}: ${JSON.stringify(attempt)}; started ${since(events.killAt)} after the SIGKILL, ${since(events.termAt)} after the SIGTERM`,
    );
  }
  exitCode = rules.every((text) => text.startsWith('✓')) ? 0 : 1;
} finally {
  await Promise.all(instances.map((instance) => instance.stop('SIGTERM')));
  haproxy.kill('SIGTERM');
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error) => console.error(error));
  project.remove();
  if (exitCode === 0) rmSync(scratch, { recursive: true, force: true });
  else console.error(`instance logs and the HAProxy configuration are kept in ${scratch}`);
}
process.exit(exitCode);

/** Resolves once HAProxy has sent requests to `count` instances (its checks put each in rotation). */
async function waitForAllInRotation(url: string, count: number): Promise<void> {
  await waitReady(`${url}/health/ready`, haproxy, 30_000);
  const seen = new Set<string>();
  const deadline = Date.now() + 30_000;
  while (seen.size < count) {
    if (Date.now() > deadline) throw new Error(`HAProxy put only ${[...seen].join(', ')} in rotation`);
    const answer = await fetch(`${url}/health/ready`, { headers: { connection: 'close' } });
    seen.add(answer.headers.get(SERVED_BY) ?? '?');
    await sleep(20);
  }
}

/**
 * Runs one load per instance at once and returns each instance's CPU microseconds per request it answered;
 * what the loads recorded joins `record`.
 */
async function measureCpu(measured: Instance[], record: LoadRecord, loads: () => Promise<LoadRecord[]>) {
  const before = measured.map((instance) => cpuSeconds(instance.child.pid as number));
  const records = await loads();
  const perRequest = new Map<string, number>();
  measured.forEach((instance, index) => {
    const { attempts, placements, minAvailable } = records[index] as LoadRecord;
    const cpu = cpuSeconds(instance.child.pid as number) - (before[index] as number);
    perRequest.set(instance.name, (1e6 * cpu) / attempts.length);
    record.attempts.push(...attempts);
    record.placements.push(...placements);
    record.minAvailable = Math.min(record.minAvailable, minAvailable);
  });
  return { perRequest };
}
