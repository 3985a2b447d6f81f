import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createPgDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { loadDataset } from './dataset.js';

/**
 * A scratch schema on the PostgreSQL server at `url`, migrated and filled with the bench's data set
 * (./dataset.ts), with an admin key and the settings of a server over it. `drop` removes it.
 */
export async function scratchDataSet(url: string, prefix: string) {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  const adminKey = `${prefix}-admin-${randomBytes(12).toString('hex')}`;
  const setup = await createPgDatabase(url, { schema });
  await migrate(setup);
  const started = performance.now();
  await loadDataset(setup);
  const loadMs = performance.now() - started;
  await setup.close();
  return {
    schema,
    adminKey,
    loadMs,
    /** The server's settings over the schema, as served unless `overrides` say otherwise. */
    settings: (overrides: Record<string, string> = {}): Record<string, string> => ({
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      DATABASE_URL: url,
      DATABASE_SCHEMA: schema,
      ADMIN_API_KEY: adminKey,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ADMIN: '1000000000', // high enough never to refuse: every request still pays for the check
      RATE_LIMIT_KEY_PREFIX: `bench-${schema}`,
      ...overrides,
    }),
    async drop() {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * The server of one build: `dist` is tsc's output, the checkout's `dist/` or a copy of it kept inside the
 * checkout (so that it finds `node_modules` and the contracts).
 */
export async function importBuild(dist: string) {
  const from = (file: string) => import(path.resolve(dist, 'src', file));
  // The composition root moved from src/server.ts to src/compose/server.ts; a build from before (ab.ts) has the first.
  const composed = existsSync(path.resolve(dist, 'src', 'compose', 'server.js'));
  const { startServer } = (await from(
    composed ? 'compose/server.js' : 'server.js',
  )) as typeof import('../../src/compose/server.js');
  const { loadConfig } = (await from('config.js')) as typeof import('../../src/config.js');
  const { resolvers } = (await from('graphql/resolvers.js')) as typeof import('../../src/graphql/resolvers.js');
  const { createLoaders } = (await from('graphql/context.js')) as typeof import('../../src/graphql/context.js');
  const { callerFromAuthorization } = (await from('http/bearer.js')) as typeof import('../../src/http/bearer.js');
  const { TimeBudget } = (await from(
    'graphql/use-time-budget.js',
  )) as typeof import('../../src/graphql/use-time-budget.js');
  /** The product's own GraphQL parts, for a plain Yoga server built from them (baselines.ts). */
  const graphqlParts = { resolvers, createLoaders, callerFromAuthorization, TimeBudget };
  return { startServer, loadConfig, graphqlParts };
}
