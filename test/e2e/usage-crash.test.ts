import { afterAll, describe, expect, it } from 'vitest';
import { OPERATOR, readRegistry } from '../../src/cli/cli-support.js';
import { createDeprecationService } from '../../src/core/lifecycle/deprecations.js';
import { exportUsage } from '../../src/core/lifecycle/usage-export.js';
import { openDatabase } from '../../src/store/open.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { usageStore } from '../../src/store/usage-store.js';
import { type ServerDatabase, serverDatabase, testDatabaseUrl } from '../support/database.js';
import { SPAWNED_ADMIN_KEY, type SpawnedServer, spawnServer } from '../support/spawned-server.js';

// kill -9 and the usage evidence: an instance registers when it starts, so one killed after a flush counts
// (with the uses it flushed) and one killed before its first flush leaves its day unmeasured. Real
// processes, on PGlite or on PostgreSQL with TEST_DATABASE_URL; the export is read as the operator's command
// reads it, with the servers gone. Days are not fixed, so a run across midnight holds as well.
const ITEM = 'graphql.Order.amount';
const database: ServerDatabase = serverDatabase('usage-crash');
const servers: SpawnedServer[] = [];

afterAll(async () => {
  for (const server of servers) await server.cleanUp();
  await database.remove();
});

/** Starts a server, and kills it with SIGKILL once `work` is done. */
async function killedAfter(env: Record<string, string>, work: (server: SpawnedServer) => Promise<void>) {
  const server = await spawnServer(database, env);
  servers.push(server);
  await work(server);
  server.child.kill('SIGKILL');
  expect(await server.exited).toBe('SIGKILL');
}

/** The usage export of ITEM over the last two days, from the database the servers used. */
async function evidence() {
  const env = database.env;
  const { db } = await openDatabase({
    ...(env.DATABASE_URL ? { url: env.DATABASE_URL } : {}),
    ...(env.DATABASE_SCHEMA ? { schema: env.DATABASE_SCHEMA } : {}),
    dataDir: env.DATA_DIR ?? './data',
  });
  try {
    const usage = usageStore(db);
    const report = createDeprecationService({ registry: readRegistry(), usage });
    return await exportUsage({ report, usage, brownouts: createSqlStore(db).brownouts }, OPERATOR, ITEM, 2);
  } finally {
    await db.close();
  }
}

describe(`kill -9 and the usage evidence (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('counts a day served by an instance killed after its flush, and not one killed before it', async () => {
    await killedAfter({ USAGE_FLUSH_MS: '100' }, async (server) => {
      const answer = await fetch(`${server.httpUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SPAWNED_ADMIN_KEY}` },
        body: JSON.stringify({ query: '{ orders(first: 1) { id amount } }' }),
      });
      expect(answer.status).toBe(200);
      // Twenty flush periods: the use is written long before the kill.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    });
    const flushed = await evidence();
    const served = flushed.days.filter((day) => day.instances > 0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((day) => day.measured && day.flushedInstances === day.instances)).toBe(true);
    expect(flushed.totals.uses).toBe(1);

    // Registered when it started, killed long before its first flush.
    await killedAfter({ USAGE_FLUSH_MS: '600000' }, async () => undefined);
    const unflushed = await evidence();
    expect(unflushed.days.some((day) => !day.measured && day.incomplete.includes('instance-not-flushed'))).toBe(true);
    expect(unflushed.totals.uses).toBe(1);
  }, 120_000);
});
