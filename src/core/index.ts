/**
 * The one service core. Every transport (REST, GraphQL, gRPC) calls these services; the rules live here
 * and nowhere else. The core depends only on its ports (store, inventory), never on a driver or transport.
 */
import { randomBytes } from 'node:crypto';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { createProductService } from './catalog/index.js';
import type { ResolveHost } from './events/index.js';
import { createEventList, createWebhookLimits, createWebhookService } from './events/index.js';
import { createIdempotencyService } from './idempotency/index.js';
import { createApiKeyService } from './keys/index.js';
import { createBrownoutService } from './lifecycle/brownouts/index.js';
import { createAdminLists, createDeprecatedUsageService, createDeprecationService } from './lifecycle/index.js';
import { createRequestShapesService } from './lifecycle/shapes/index.js';
import { createDraftService, createOrderService } from './orders/index.js';
import type { InventoryPort, Store } from './ports/index.js';
import { createCursorCodec } from './shared/index.js';
import { createUserService } from './users/index.js';

/** What the core is built from. */
export interface CoreOptions {
  store: Store;
  /** VAT rate included in totals, e.g. 0.1. */
  vatRate: number;
  /** Budget of an order placement when the caller gives none. */
  requestTimeoutMs: number;
  /**
   * The most units of one order item, `OrderItem.quantity`'s maximum in the REST contract
   * (generated/core-rules.json): lines of one product are merged, and the merged line must fit it.
   */
  maxItemQuantity?: number;
  /** How long an idempotency claim holds its key before a retry may take it over (default 30 s). */
  idempotencyLeaseMs?: number;
  /** The HMAC key of page cursors; generated once and kept in the database when not configured. */
  cursorSecret?: string;
  /**
   * How order placement reaches the inventory service (built beside the core, src/core/inventory/inventory.ts):
   * the server and the tests pass the client of `inventory.v1.Inventory` (src/grpc/inventory-client.ts).
   */
  inventory: InventoryPort;
  /** How webhook hosts resolve (DNS), and whether private targets are allowed (development). */
  webhookTargets?: { resolve: ResolveHost; allowPrivate: boolean };
  /** WEBHOOK_MAX_ENDPOINTS: endpoints one owner may hold (default 10). */
  maxWebhookEndpoints?: number;
  /** The deprecated and watched items of the contracts (generated/deprecations.json); none by default. */
  registry?: DeprecationRegistry;
  /** The clock of the deprecation report and the brownout windows (tests move it). */
  now?: () => Date;
  /** UNPAID_ORDER_MINUTES: a PENDING order older than this is canceled by the server (0: never). */
  unpaidOrderMinutes?: number;
  /** Days of notice a brownout window needs (default 7). */
  brownoutNoticeDays?: number;
  /** The longest brownout window in minutes (default 24 hours). */
  brownoutMaxMinutes?: number;
  /**
   * Whether deprecation and brownout notices are also mailed to the notified callers (SMTP_URL): each mail
   * is queued in the transaction of its event and sent by the mail dispatcher. Off by default.
   */
  mailNotices?: boolean;
}

/** The assembled core. */
export type Core = Awaited<ReturnType<typeof createCore>>;

/** Assembles the services over a store. */
export async function createCore(options: CoreOptions) {
  const { store } = options;
  const secret =
    options.cursorSecret ?? (await store.settings.putIfAbsent('cursor_secret', randomBytes(32).toString('base64url')));
  const cursors = createCursorCodec(secret);
  const idempotency = createIdempotencyService(store, undefined, options.idempotencyLeaseMs);
  const maxItemQuantity = options.maxItemQuantity ?? Number.MAX_SAFE_INTEGER;
  const clock = options.now ? { now: options.now } : {};
  const orders = createOrderService({
    store,
    inventory: options.inventory,
    cursors,
    idempotency,
    requestTimeoutMs: options.requestTimeoutMs,
    vatRate: options.vatRate,
    maxItemQuantity,
    ...(options.unpaidOrderMinutes ? { unpaidOrderMs: options.unpaidOrderMinutes * 60_000 } : {}),
  });
  const registry = options.registry ?? { items: [] };
  const brownouts = createBrownoutService({
    store: store.brownouts,
    registry,
    ...clock,
    ...(options.brownoutNoticeDays !== undefined ? { noticeDays: options.brownoutNoticeDays } : {}),
    ...(options.brownoutMaxMinutes !== undefined ? { maxMinutes: options.brownoutMaxMinutes } : {}),
    mailNotices: options.mailNotices ?? false,
  });
  const deprecations = createDeprecationService({
    registry,
    usage: store.usage,
    brownouts,
    ...clock,
    mailNotices: options.mailNotices ?? false,
  });
  return {
    cursors,
    orders,
    users: createUserService({ store, cursors, idempotency }),
    products: createProductService({ store, cursors, idempotency }),
    drafts: createDraftService({ store, idempotency, maxItemQuantity }),
    apiKeys: createApiKeyService(store, { cursors, ...clock }),
    /** The sweep of expired keys and claims; running a use case under a key is each use case's own. */
    idempotency: { leaseMs: idempotency.leaseMs, purgeExpired: idempotency.purgeExpired },
    brownouts,
    deprecations,
    webhooks: createWebhookService({
      webhooks: store.webhooks,
      events: store.events,
      cursors,
      resolve: options.webhookTargets?.resolve ?? (async () => []),
      allowPrivateTargets: options.webhookTargets?.allowPrivate ?? false,
      maxEndpointsPerOwner: options.maxWebhookEndpoints ?? 10,
      ...clock,
    }),
    webhookLimits: createWebhookLimits(store.webhooks),
    /** The caller's events of the last 30 days. */
    listEvents: createEventList({ events: store.events, cursors, ...clock }),
    adminLists: createAdminLists({ brownouts, deprecations, usage: store.usage, cursors }),
    /** A key's own use of deprecated and watched items (its owner or an admin). */
    deprecatedUsage: createDeprecatedUsageService({
      registry,
      usage: store.usage,
      apiKeys: store.apiKeys,
      brownouts,
      ...clock,
    }),
    /** What a key sent, as names, in every protocol (its owner or an admin). */
    requestShapes: createRequestShapesService({ shapes: store.shapes, apiKeys: store.apiKeys, cursors, ...clock }),
  };
}

export type { Caller } from './shared/index.js';
export { DomainError, type ErrorCode, errorCatalog } from './shared/index.js';
