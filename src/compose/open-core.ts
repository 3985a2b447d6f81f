/**
 * Opens the instance's state: the database (migrated), the event wake-ups, the store, the inventory service
 * beside the core and the core over them (with spans when tracing is on), and the evidence key that signs
 * usage exports.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { publicKeyPem } from '@order-api/contract-registry';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createEventPolicy } from '../core/events/event-policy.js';
import { createCore } from '../core/index.js';
import { createInventoryService } from '../core/inventory/inventory.js';
import { createInventoryClient } from '../grpc/inventory-client.js';
import { traceCore } from '../observability/trace-core.js';
import { activeTracer } from '../observability/tracing.js';
import { createRedisWakeups } from '../redis/redis-wakeups.js';
import type { Database } from '../store/database.js';
import { type EventWakeups, notifyWakeups } from '../store/event-wakeups.js';
import { evidenceSigningKey } from '../store/evidence-key-store.js';
import { openDatabase } from '../store/open.js';
import { createSqlStore } from '../store/sql-store.js';
import { traceDatabase } from '../store/trace-database.js';
import { resolveHost } from '../webhooks/http-sender.js';

/** What `npm run generate` derived from the contracts for the core (generated/). */
export interface ContractRules {
  /** The deprecated and watched items (generated/deprecations.json). */
  registry: DeprecationRegistry;
  /** `OrderItem.quantity`'s maximum (generated/core-rules.json): a merged order line must fit it. */
  maxItemQuantity: number;
}

/** What `npm run generate` derived from the contracts for the core: the deprecation registry and the core's bounds. */
export async function readContractRules(projectRoot: string): Promise<ContractRules> {
  const read = async (file: string) => JSON.parse(await readFile(path.join(projectRoot, 'generated', file), 'utf8'));
  const [registry, coreRules] = await Promise.all([read('deprecations.json'), read('core-rules.json')]);
  return { registry, maxItemQuantity: coreRules.orderItemQuantity.maximum };
}

/** Opens (and migrates) the database and builds the core over it: with spans if tracing is on, else as it is. */
export async function openCore(
  config: Config,
  logger: Logger,
  { registry, maxItemQuantity }: ContractRules,
  now?: () => Date,
) {
  const tracer = activeTracer();
  const { db: opened, applied } = await openDatabase({
    ...(config.DATABASE_URL ? { url: config.DATABASE_URL } : {}),
    ...(config.DATABASE_SCHEMA ? { schema: config.DATABASE_SCHEMA } : {}),
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    dataDir: config.DATA_DIR,
  });
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const db = traceDatabase(opened, tracer);
  const wakeups = eventWakeups(config, db, logger);
  const store = createSqlStore(db, createEventPolicy({ vatRate: config.VAT_RATE }), wakeups);
  // The inventory service stands beside the core; order placement reaches it through the gRPC client:
  // in-process by default (the router transport), remote with INVENTORY_URL.
  const inventory = createInventoryService(store);
  const inventoryClient = createInventoryClient(inventory, {
    ...(config.INVENTORY_URL ? { url: config.INVENTORY_URL } : {}),
    ...(config.INTERNAL_TOKEN ? { token: config.INTERNAL_TOKEN } : {}),
    ...(tracer ? { tracer } : {}),
  });
  const untracedCore = await createCore({
    store,
    inventory: inventoryClient,
    vatRate: config.VAT_RATE,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    unpaidOrderMinutes: config.UNPAID_ORDER_MINUTES,
    idempotencyLeaseMs: config.IDEMPOTENCY_LEASE_SECONDS * 1000,
    ...(config.CURSOR_SECRET ? { cursorSecret: config.CURSOR_SECRET } : {}),
    registry,
    maxItemQuantity,
    webhookTargets: { resolve: resolveHost, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
    maxWebhookEndpoints: config.WEBHOOK_MAX_ENDPOINTS,
    brownoutNoticeDays: config.BROWNOUT_NOTICE_DAYS,
    brownoutMaxMinutes: config.BROWNOUT_MAX_MINUTES,
    // With SMTP_URL, notices queue their e-mail with their events; the mail dispatcher (src/mail) sends it.
    mailNotices: config.SMTP_URL !== undefined,
    ...(now ? { now } : {}),
  });
  // The key that signs usage exports: configured, or generated on the first start and kept in the database;
  // its public half is published at /contracts/evidence-key.
  const evidenceKey = publicKeyPem(await evidenceSigningKey(db, config.EVIDENCE_SIGNING_KEY));
  return { db, wakeups, store, core: traceCore(untracedCore, tracer), inventory, inventoryClient, evidenceKey, tracer };
}

/**
 * How committed events wake the feeds: over Redis pub/sub with REDIS_URL and a PostgreSQL server (no LISTEN
 * connection then), else by NOTIFY. The embedded database is one process, whose notifications never leave
 * it: Redis would only add a round trip and a dependency, so it keeps them.
 */
function eventWakeups(config: Config, db: Database, logger: Logger): EventWakeups {
  if (!config.REDIS_URL || db.kind !== 'postgres') return notifyWakeups(db);
  return createRedisWakeups({
    url: config.REDIS_URL,
    channel: db.channel(config.EVENTS_REDIS_CHANNEL),
    logger,
    pollMs: config.EVENT_FEED_POLL_MS,
  });
}
