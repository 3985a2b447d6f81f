import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';
import { dropSchema, testDatabaseUrl } from './database.js';

/**
 * Starts the real server (both listeners) on free loopback ports with a silent logger, on a database of
 * its own: in-memory PGlite, or a fresh schema on `TEST_DATABASE_URL` (dropped on close).
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const schema = testDatabaseUrl ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    // Off unless a test is about it: every test's requests come from one address and a few keys.
    RATE_LIMIT_ENABLED: 'false',
    ...(testDatabaseUrl && schema ? { DATABASE_URL: testDatabaseUrl, DATABASE_SCHEMA: schema } : {}),
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }));
  return {
    ...server,
    async close() {
      await server.close();
      if (schema) await dropSchema(schema);
    },
  };
}
