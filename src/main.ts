/**
 * The entry point of `npm start` (`node dist/src/main.js`): reads the configuration from the environment,
 * starts the server (./compose/server.ts), writes first-start keys, and drains on SIGTERM/SIGINT. With `WORKERS`
 * this process is the cluster's primary (./cluster.ts), which prepares the database and forks the servers.
 */
import { pathToFileURL } from 'node:url';
import { type Logger, pino } from 'pino';
import { announceServing, isClusterWorker, runPrimary } from './cluster.js';
import { DRAIN_LIMIT_MS, prepareDatabase, startServer } from './compose/server.js';
import { type Config, loadConfig } from './config.js';
import { writeFirstStartKeys } from './first-start-keys.js';
import { activeTracer, flushTraces, traceLogFields } from './observability/tracing.js';
import { describeStartFailure } from './start-failure.js';

export { type RunningServer, startServer } from './compose/server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // With tracing on (an SDK loaded by `--import ./dist/src/observability/tracing-register.js`), every line
  // written while a span is active carries its trace and span id.
  const logger = pino({ level: config.LOG_LEVEL, ...(activeTracer() ? { mixin: traceLogFields } : {}) });
  if (config.WORKERS !== undefined && !isClusterWorker()) {
    return runPrimary(config.WORKERS, logger, () => prepare(config, logger));
  }
  const server = await startServer(config, logger).catch((error: unknown) => {
    throw new Error(describeStartFailure(error, config.DATABASE_URL));
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const forced = setTimeout(() => {
      logger.error(`drain took longer than ${DRAIN_LIMIT_MS / 1000} s; exiting`);
      process.exit(1);
    }, DRAIN_LIMIT_MS);
    forced.unref();
    await server.close();
    await flushTraces().catch((error: unknown) => logger.warn({ err: error }, 'last trace export failed'));
    logger.info('stopped');
    process.exit(0);
  };
  // The handlers go in before anything else is awaited, so that a signal arriving during the rest of the
  // start still drains.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Issued keys never reach the log stream: they go to an owner-only file, and the log says where.
  if (await writeFirstStartKeys(config.KEYS_FILE, server.secrets)) {
    logger.warn({ file: config.KEYS_FILE }, 'first start: API keys issued and written to this file (owner-only)');
  }
  logger.info({ http: server.httpUrl, grpc: server.grpcUrl }, 'order api listening');
  announceServing();
}

/** Cluster mode's preparation in the primary: migrations and the first start's keys, written once. */
async function prepare(config: Config, logger: Logger): Promise<void> {
  const secrets = await prepareDatabase(config, logger).catch((error: unknown) => {
    throw new Error(describeStartFailure(error, config.DATABASE_URL));
  });
  if (await writeFirstStartKeys(config.KEYS_FILE, secrets)) {
    logger.warn({ file: config.KEYS_FILE }, 'first start: API keys issued and written to this file (owner-only)');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
