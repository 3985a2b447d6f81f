import { pino } from 'pino';
import type { StartOptions } from '../../src/compose/server.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';
import { type ServerDatabase, serverDatabase } from './database.js';

/**
 * Starts the real server (both listeners) on free loopback ports with a silent logger, on a database of
 * its own: an embedded PGlite directory, or a fresh schema on `TEST_DATABASE_URL` (removed on close).
 * `options` moves its clock (`now`), as a fixture server's.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'now'> = {},
): Promise<RunningServer> {
  const database = serverDatabase('order-api-server');
  // Demo data as on a default start: seeded on the embedded database, not on a server.
  const { SEED_DEMO: _unseeded, ...databaseEnv } = database.env;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    // Off unless a test is about it: every test's requests come from one address and a few keys.
    RATE_LIMIT_ENABLED: 'false',
    // Ten times the default placement budget (within the default 30 s lease): a test proves its rule, not
    // that a busy machine places an order within 2 s. Tests of the budget set their own.
    REQUEST_TIMEOUT_MS: '20000',
    ...databaseEnv,
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }), options).catch(async (error: unknown) => {
    await database.remove();
    throw error;
  });
  return {
    ...server,
    async close() {
      try {
        await server.close();
      } finally {
        await database.remove();
      }
    },
  };
}

/** Where and how a fixture's server runs: its checkout, its database, its admin key, its clock. */
export interface FixtureServerOptions {
  projectRoot: string;
  database: ServerDatabase;
  adminKey: string;
  now?: () => Date;
  /** More settings (e.g. `USAGE_FLUSH_MS` long, so that counts are flushed only when a test asks). */
  env?: Record<string, string>;
  /** The handlers of the fixture contract's later version (StartOptions' `versionHandlers`). */
  versionHandlers?: StartOptions['versionHandlers'];
  /** The gRPC packages the fixture cuts beside inventory.v1 (StartOptions' `versionServices`). */
  versionServices?: StartOptions['versionServices'];
}

/**
 * Starts the real server of a fixture checkout (another contract and registry) on free loopback ports,
 * over a database the test owns (it survives a restart: start again with the same `database`).
 */
export function startFixtureServer({
  projectRoot,
  database,
  adminKey,
  now,
  env = {},
  versionHandlers,
  versionServices,
}: FixtureServerOptions) {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    ADMIN_API_KEY: adminKey,
    LOG_LEVEL: 'silent',
    ...env,
    ...database.env,
  });
  return startServer(config, pino({ level: 'silent' }), {
    projectRoot,
    ...(now ? { now } : {}),
    ...(versionHandlers ? { versionHandlers } : {}),
    ...(versionServices ? { versionServices } : {}),
  });
}

/**
 * Instances of one fixture's server over one database, started and stopped one by one (a rolling restart):
 * `start` adds one, `stop` closes one, `stopAll` closes what is still running (in `afterAll`).
 */
export function instancesOf(options: FixtureServerOptions) {
  const running: RunningServer[] = [];
  return {
    running,
    async start(): Promise<RunningServer> {
      const server = await startFixtureServer(options);
      running.push(server);
      return server;
    },
    async stop(server: RunningServer): Promise<void> {
      running.splice(running.indexOf(server), 1);
      await server.close();
    },
    async stopAll(): Promise<void> {
      await Promise.all(running.splice(0).map((server) => server.close().catch(() => undefined)));
    },
  };
}
