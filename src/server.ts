/**
 * The composition root and the only place that listens: from a configuration, builds the public HTTP/1.1
 * app (REST, GraphQL, contracts, health) and the internal HTTP/2 gRPC server, and stops both gracefully.
 * `src/main.ts` runs it for `npm start`; tests call `startServer` with their own configuration.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import { createInternalApp } from './compose/internal-app.js';
import { createHttpApp } from './compose/public-app.js';
import type { Config } from './config.js';
import { bootstrap } from './core/bootstrap.js';
import type { Caller } from './core/caller.js';
import type { DeprecationRegistry } from './core/deprecation-registry.js';
import { type Core, createCore } from './core/index.js';
import { createUsageRecorder } from './core/usage-recorder.js';
import { seedDemo } from './demo/seed-demo.js';
import { grpcCodeNameOf } from './grpc/errors.js';
import { createInventoryClient, type InventoryClient } from './grpc/inventory-client.js';
import { createHttpDrain } from './http/drain.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter.js';
import { projectRoot as checkoutRoot } from './project-root.js';
import { openDatabase } from './store/open.js';
import { createSqlStore } from './store/sql-store.js';

/** A running server: its addresses and a graceful stop. */
export interface RunningServer {
  httpUrl: string;
  grpcUrl: string;
  core: Core;
  /** Secrets created by this start (first start on an empty database), shown once. */
  secrets: { adminKey?: string; demoCustomerKey?: string };
  /** Writes the buffered deprecation usage now (tests; the timer does it every USAGE_FLUSH_MS). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

/**
 * How often stale reservations (10 minutes), idempotency keys (24 hours) and expired idempotency claims
 * (their lease) are looked for; at least once per lease.
 */
const EXPIRY_SWEEP_MS = 60_000;

/**
 * Starts both listeners from a configuration; resolves once both accept connections. `projectRoot` (tests)
 * serves the contracts and the deprecation registry of another checkout; `now` (tests) moves the clock of
 * deprecation usage, the report and brownout windows.
 */
export async function startServer(
  config: Config,
  logger: Logger,
  { projectRoot = checkoutRoot, now }: { projectRoot?: string; now?: () => Date } = {},
): Promise<RunningServer> {
  let serving = true;
  const registry = JSON.parse(
    await readFile(path.join(projectRoot, 'generated/deprecations.json'), 'utf8'),
  ) as DeprecationRegistry;
  const { db, applied } = await openDatabase({
    ...(config.DATABASE_URL ? { url: config.DATABASE_URL } : {}),
    ...(config.DATABASE_SCHEMA ? { schema: config.DATABASE_SCHEMA } : {}),
    poolSize: config.DATABASE_POOL_SIZE,
    dataDir: config.DATA_DIR,
  });
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const store = createSqlStore(db);
  let inventoryClient: InventoryClient | undefined;
  const core = await createCore({
    store,
    // Order placement reserves stock through the gRPC client: in-process by default, remote with INVENTORY_URL.
    inventoryPort: (service) => {
      inventoryClient = createInventoryClient(service, {
        ...(config.INVENTORY_URL ? { url: config.INVENTORY_URL } : {}),
        ...(config.INTERNAL_TOKEN ? { token: config.INTERNAL_TOKEN } : {}),
      });
      return inventoryClient;
    },
    vatRate: config.VAT_RATE,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    idempotencyLeaseMs: config.IDEMPOTENCY_LEASE_SECONDS * 1000,
    ...(config.CURSOR_SECRET ? { cursorSecret: config.CURSOR_SECRET } : {}),
    registry,
    brownoutNoticeDays: config.BROWNOUT_NOTICE_DAYS,
    brownoutMaxMinutes: config.BROWNOUT_MAX_MINUTES,
    ...(now ? { now } : {}),
  });
  // Brownout windows: loaded before serving, then reloaded so that every instance blocks the same ones.
  await core.brownouts.refresh();
  const brownoutRefresh = setInterval(() => {
    core.brownouts.refresh().catch((error: unknown) => logger.warn({ err: error }, 'brownout refresh failed'));
  }, config.BROWNOUT_REFRESH_MS);
  brownoutRefresh.unref();
  // Uses of deprecated and watched items, written every USAGE_FLUSH_MS off the request path.
  const recorder = createUsageRecorder({
    port: store.usage,
    instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    flushMs: config.USAGE_FLUSH_MS,
    onError: (error) => logger.warn({ err: error }, 'usage flush failed; kept for the next one'),
    ...(now ? { now } : {}),
  });
  const secrets = await bootstrap(core, store, {
    ...(config.SEED_DEMO ? { seed: (admin: Caller) => seedDemo(core, admin) } : {}),
    ...(config.ADMIN_API_KEY ? { adminApiKey: config.ADMIN_API_KEY } : {}),
  });
  const sweep = setInterval(
    () => {
      core.inventory.expireStale().catch((error: unknown) => logger.warn({ err: error }, 'reservation expiry failed'));
      core.idempotency
        .purgeExpired()
        .catch((error: unknown) => logger.warn({ err: error }, 'idempotency purge failed'));
    },
    Math.min(EXPIRY_SWEEP_MS, config.IDEMPOTENCY_LEASE_SECONDS * 1000),
  );
  sweep.unref();

  // Handlers in flight and kept-alive connections, so that shutdown ends each connection after its answer
  // and closes the database only after the last handler (a client that went away does not stop its handler).
  const httpDrain = createHttpDrain();
  const metrics = createMetrics();
  metrics.watchPool(() => db.poolStats?.());
  const rateLimiter: RateLimiter | undefined = config.RATE_LIMIT_ENABLED
    ? createRateLimiter({
        windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
        logger,
        keyPrefix: config.RATE_LIMIT_KEY_PREFIX,
        ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
      })
    : undefined;
  if (rateLimiter) metrics.watchRateLimiter(() => rateLimiter.mode());
  const app = await createHttpApp({
    track: httpDrain.middleware,
    grpcCodeName: grpcCodeNameOf,
    projectRoot,
    logger,
    core,
    metrics,
    registry,
    recorder,
    ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    graphql: {
      maxDepth: config.GRAPHQL_MAX_DEPTH,
      maxCost: config.GRAPHQL_MAX_COST,
      maxAliases: config.GRAPHQL_MAX_ALIASES,
      maxTokens: config.GRAPHQL_MAX_TOKENS,
      timeoutMs: config.GRAPHQL_TIMEOUT_MS,
      persistedOnly: config.GRAPHQL_PERSISTED_ONLY,
      introspection: config.GRAPHQL_INTROSPECTION,
    },
    healthChecks: {
      database: async () => {
        await db.query('SELECT 1');
      },
    },
    degradations: {
      rateLimit: () =>
        rateLimiter?.mode() === 'degraded'
          ? 'Redis (REDIS_URL) is unreachable: rate budgets are kept per instance until it returns'
          : undefined,
    },
    ...(rateLimiter
      ? {
          rateBudget: {
            limiter: rateLimiter,
            policy: {
              customer: config.RATE_LIMIT_CUSTOMER,
              admin: config.RATE_LIMIT_ADMIN,
              anonymous: config.RATE_LIMIT_ANONYMOUS,
              windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
            },
          },
        }
      : {}),
  });

  const grpc = createInternalApp({
    core,
    metrics,
    registry,
    recorder,
    ...(config.INTERNAL_TOKEN ? { internalToken: config.INTERNAL_TOKEN } : {}),
    isServing: () => serving,
  });
  const grpcAddress = await grpc.listen(config.GRPC_PORT, config.GRPC_HOST);

  const http = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(server));
  });
  httpDrain.watch(http as Server);
  const httpAddress = http.address() as AddressInfo;
  const host = (address: AddressInfo) => (address.family === 'IPv6' ? `[${address.address}]` : address.address);

  return {
    httpUrl: `http://${host(httpAddress)}:${httpAddress.port}`,
    grpcUrl: `http://${host(grpcAddress)}:${grpcAddress.port}`,
    core,
    secrets: {
      ...(secrets.adminKey ? { adminKey: secrets.adminKey } : {}),
      ...(secrets.demoCustomerKey ? { demoCustomerKey: secrets.demoCustomerKey } : {}),
    },
    flushUsage: () => recorder.flush(),
    async close() {
      serving = false;
      clearInterval(sweep);
      clearInterval(brownoutRefresh);
      // Stop taking connections, let in-flight requests and calls finish, end kept-alive connections after
      // their current answer; then the last usage flush, then the database.
      await Promise.all([httpDrain.drain(http as Server), grpc.close()]);
      await recorder.close().catch((error: unknown) => logger.warn({ err: error }, 'last usage flush failed'));
      inventoryClient?.close();
      await rateLimiter?.close();
      await db.close();
    },
  };
}
