import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';
import { serverDatabase } from './database.js';

/**
 * Starts the real server (both listeners) on free loopback ports with a silent logger, on a database of
 * its own: an embedded PGlite directory, or a fresh schema on `TEST_DATABASE_URL` (removed on close).
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer> {
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
    ...databaseEnv,
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' })).catch(async (error: unknown) => {
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
