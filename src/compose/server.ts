/**
 * The composition root and the only place that listens: from a configuration, builds the public HTTP/1.1
 * app (REST, GraphQL, contracts, health) and the internal HTTP/2 gRPC server, and stops both gracefully.
 * `src/main.ts` runs it for `npm start`; tests call `startServer` with their own configuration.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { bootstrap } from '../core/bootstrap.js';
import type { Core } from '../core/index.js';
import type { InventoryService } from '../core/inventory/inventory.js';
import { createDeprecationPolicy, type UsageCount } from '../core/lifecycle/deprecation-policy.js';
import type { Caller } from '../core/shared/caller.js';
import { seedDemo } from '../demo/seed-demo.js';
import { grpcCodeNameOf } from '../grpc/errors.js';
import { createHttpDrain } from '../http/drain.js';
import { createMetrics } from '../observability/metrics.js';
import { projectRoot as checkoutRoot } from '../project-root.js';
import type { VersionHandlers } from '../rest/create-rest-app.js';
import { createInternalApp, type VersionService } from './internal-app.js';
import { listenPublic } from './listen-public.js';
import { openCore, readContractRules } from './open-core.js';
import { openStreams } from './open-streams.js';
import { createHttpApp } from './public-app.js';
import { closeRecorder, closeShapeRecorder, startRecorder, startShapeRecorder, webhookShapes } from './recorders.js';
import { createConfiguredRateLimiter, publicAppSettings } from './settings.js';
import { startEvents } from './start-events.js';

/** A running server: its addresses and a graceful stop. */
export interface RunningServer {
  httpUrl: string;
  grpcUrl: string;
  core: Core;
  /** The inventory service the internal port serves (beside the core, which reaches it through its client). */
  inventory: InventoryService;
  /** Secrets created by this start (first start on an empty database), shown once. */
  secrets: { adminKey?: string; demoCustomerKey?: string };
  /** Writes the buffered deprecation usage now (tests; the timer does it every USAGE_FLUSH_MS). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

/** Options of a start that tests change: another checkout's contracts and registry, a moved clock. */
export interface StartOptions {
  /** Serves the contracts and the deprecation registry of another checkout. */
  projectRoot?: string;
  /** Moves the clock of deprecation usage, the report and brownout windows. */
  now?: () => Date;
  /** Serves the operations a fixture's later version adds (its contract's `/v2` operations). */
  versionHandlers?: VersionHandlers;
  /** Serves the packages a fixture cuts beside inventory.v1 (`inventory.v2`). */
  versionServices?: readonly VersionService[];
}

/** How long a SIGTERM's drain may take before the process exits anyway (the deploy files wait longer). */
export const DRAIN_LIMIT_MS = 10_000;

/**
 * How often stale reservations (10 minutes), idempotency keys (24 hours) and expired idempotency claims
 * (their lease) are looked for; at least once per lease.
 */
const EXPIRY_SWEEP_MS = 60_000;

/** Starts both listeners from a configuration; resolves once both accept connections. */
export async function startServer(
  config: Config,
  logger: Logger,
  { projectRoot = checkoutRoot, now, versionHandlers, versionServices }: StartOptions = {},
): Promise<RunningServer> {
  let serving = true;
  const contractRules = await readContractRules(projectRoot);
  const { registry } = contractRules;
  const { db, wakeups, store, core, inventory, inventoryClient, evidenceKey, tracer } = await openCore(
    config,
    logger,
    contractRules,
    now,
  );
  // Brownout windows are loaded before serving (orphans cancelled); the timers reload them and sweep expired leases.
  await loadBrownouts(core, logger);
  const stopTimers = startTimers(core, inventory, config, logger);
  const metrics = createMetrics();
  const recorder = await startRecorder(store.usage, config, logger, metrics, now);
  const shapes = await startShapeRecorder(store.shapes, config, logger, metrics, now);
  const onCount = ({ item, kind }: UsageCount) => metrics.deprecatedUsage.inc({ item: item.id, kind });
  const deprecationPolicy = createDeprecationPolicy({ brownouts: core.brownouts, recorder, onCount });
  // Webhook deliveries count uses through the same recorder (src/core/lifecycle/event-deprecations.ts).
  const onAccepted = await webhookShapes(shapes, projectRoot);
  const usage = { projectRoot, registry, recorder, onCount, metrics, onAccepted };
  const events = await startEvents(wakeups, store, config, logger, usage);
  const secrets = await bootstrapInstance(core, store, config);
  const { draining, subscriptions, watchStock } = openStreams(events.feed, store, core, config);

  // Handlers in flight and kept-alive connections, so that shutdown ends each connection after its answer
  // and closes the database only after the last handler (a client that went away does not stop its handler).
  const httpDrain = createHttpDrain();
  metrics.watchPool(() => db.poolStats?.());
  const rateLimiter = createConfiguredRateLimiter(config, logger);
  if (rateLimiter) metrics.watchRateLimiter(() => rateLimiter.mode());
  const app = await createHttpApp({
    track: httpDrain.middleware,
    ...{ grpcCodeName: grpcCodeNameOf, projectRoot, logger, core, metrics, registry, deprecationPolicy },
    ...{ evidenceKey, tracing: tracer !== undefined, subscriptions, shapes },
    ...(versionHandlers ? { versionHandlers } : {}),
    ...publicAppSettings(config, db, rateLimiter, wakeups, () => serving),
  });
  const grpc = createInternalApp({
    ...{ core, inventory, metrics, registry, deprecationPolicy, host: config.GRPC_SERVER, versionServices },
    maxConcurrentStreams: config.GRPC_MAX_CONCURRENT_STREAMS,
    ...(config.INTERNAL_TOKEN ? { internalToken: config.INTERNAL_TOKEN } : {}),
    ...(tracer ? { tracer } : {}),
    ...{ isServing: () => serving, watchStock, draining: draining.signal, shapes },
  });
  const grpcAddress = await grpc.listen(config.GRPC_PORT, config.GRPC_HOST);
  const http = await listenPublic(app.fetch, config.PORT, config.HOST);
  httpDrain.watch(http as Server);

  return {
    httpUrl: urlOf(http.address() as AddressInfo),
    grpcUrl: urlOf(grpcAddress),
    core,
    inventory,
    secrets: {
      ...(secrets.adminKey ? { adminKey: secrets.adminKey } : {}),
      ...(secrets.demoCustomerKey ? { demoCustomerKey: secrets.demoCustomerKey } : {}),
    },
    flushUsage: () => Promise.all([recorder.flush(), shapes?.flush()]).then(() => undefined),
    async close() {
      serving = false;
      // Behind a load balancer without a preStop hook: keep serving, not ready, until its health checks
      // have taken this instance out of rotation (a stream opened during the drain would be refused).
      if (config.SHUTDOWN_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));
      draining.abort();
      stopTimers();
      // Stop taking connections, let in-flight requests and calls finish, end kept-alive connections after
      // their current answer; then the last usage flush, then the database.
      await Promise.all([httpDrain.drain(http as Server), grpc.close(), events.stop()]);
      await Promise.all([closeRecorder(recorder, logger), closeShapeRecorder(shapes, logger)]);
      inventoryClient.close();
      await Promise.all([rateLimiter?.close(), wakeups.close()]);
      await db.close();
    },
  };
}

/**
 * Prepares the database without serving: migrations, the evidence key, the first start's keys and demo
 * data. Cluster mode's primary runs it once before it forks, so that workers starting together find it done.
 */
export async function prepareDatabase(
  config: Config,
  logger: Logger,
  { projectRoot = checkoutRoot }: Pick<StartOptions, 'projectRoot'> = {},
): Promise<RunningServer['secrets']> {
  const { db, wakeups, store, core, inventoryClient } = await openCore(
    config,
    logger,
    await readContractRules(projectRoot),
  );
  try {
    const { adminKey, demoCustomerKey } = await bootstrapInstance(core, store, config);
    return { ...(adminKey ? { adminKey } : {}), ...(demoCustomerKey ? { demoCustomerKey } : {}) };
  } finally {
    inventoryClient.close();
    await wakeups.close();
    await db.close();
  }
}

/** The first start's keys and demo data (each only on an empty database). */
function bootstrapInstance(core: Core, store: Parameters<typeof bootstrap>[1], config: Config) {
  return bootstrap(core, store, {
    ...(config.SEED_DEMO ? { seed: (admin: Caller) => seedDemo(core, admin) } : {}),
    ...(config.ADMIN_API_KEY ? { adminApiKey: config.ADMIN_API_KEY } : {}),
  });
}

/**
 * Loads the brownout windows, then cancels those of items the registry no longer deprecates (a deprecation
 * undone, src/core/lifecycle/brownouts/brownout-orphans.ts) and logs them.
 */
async function loadBrownouts(core: Core, logger: Logger): Promise<void> {
  await core.brownouts.refresh();
  const cancelled = await core.brownouts.retireOrphans();
  if (cancelled.length > 0) {
    logger.info(
      { brownouts: cancelled.map(({ id, item, cancelNote }) => ({ id, item, note: cancelNote })) },
      'brownout windows cancelled: their items are no longer deprecated',
    );
  }
}

/** The periodic work of an instance: brownout reloads and the expiry sweep. Returns their stop. */
function startTimers(core: Core, inventory: InventoryService, config: Config, logger: Logger): () => void {
  const warn = (message: string) => (error: unknown) => logger.warn({ err: error }, message);
  const brownoutRefresh = setInterval(() => {
    loadBrownouts(core, logger).catch(warn('brownout refresh failed'));
  }, config.BROWNOUT_REFRESH_MS);
  const sweep = setInterval(
    () => {
      inventory.expireStale().catch(warn('reservation expiry failed'));
      core.idempotency.purgeExpired().catch(warn('idempotency purge failed'));
      core.orders.expireUnpaid().catch(warn('unpaid order expiry failed'));
    },
    Math.min(EXPIRY_SWEEP_MS, config.IDEMPOTENCY_LEASE_SECONDS * 1000),
  );
  brownoutRefresh.unref();
  sweep.unref();
  return () => {
    clearInterval(sweep);
    clearInterval(brownoutRefresh);
  };
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
