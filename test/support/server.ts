import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';

/** Starts the real server (both listeners) on free loopback ports with a silent logger. */
export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...env,
  });
  return startServer(config, pino({ level: 'silent' }));
}
