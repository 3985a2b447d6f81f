/**
 * The composition root and the only place that listens: reads the configuration, builds the public
 * HTTP/1.1 app (REST, GraphQL, contracts, health) and the internal HTTP/2 gRPC server, and drains both on
 * SIGTERM/SIGINT. Run with `npm start`; tests call `startServer` with their own configuration.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { type Logger, pino } from 'pino';
import { type Config, loadConfig } from './config.js';
import { createGrpcServer } from './grpc/create-grpc-server.js';
import { healthRoutes as grpcHealthRoutes } from './grpc/health-service.js';
import { createHttpApp } from './http/create-http-app.js';

const projectRoot = path.resolve(import.meta.dirname, '..');

/** A running server: its addresses and a graceful stop. */
export interface RunningServer {
  httpUrl: string;
  grpcUrl: string;
  close(): Promise<void>;
}

/** Starts both listeners from a configuration; resolves once both accept connections. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  let serving = true;
  const app = await createHttpApp({ projectRoot, logger, healthChecks: {} });

  const grpc = createGrpcServer({
    routes: grpcHealthRoutes({ services: [], isServing: () => serving }),
  });
  const grpcAddress = await grpc.listen(config.GRPC_PORT, config.GRPC_HOST);

  const http = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(server));
  });
  const httpAddress = http.address() as AddressInfo;
  const host = (address: AddressInfo) => (address.family === 'IPv6' ? `[${address.address}]` : address.address);

  return {
    httpUrl: `http://${host(httpAddress)}:${httpAddress.port}`,
    grpcUrl: `http://${host(grpcAddress)}:${grpcAddress.port}`,
    async close() {
      serving = false;
      // Stop taking connections, let in-flight requests finish, then close idle keep-alive sockets.
      const httpClosed = new Promise<void>((resolve) => http.close(() => resolve()));
      if ('closeIdleConnections' in http) http.closeIdleConnections();
      await Promise.all([httpClosed, grpc.close()]);
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL });
  const server = await startServer(config, logger);
  logger.info({ http: server.httpUrl, grpc: server.grpcUrl }, 'order api listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const forced = setTimeout(() => {
      logger.error('drain took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    forced.unref();
    await server.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
