/**
 * The ports of the core, one file per aggregate (src/core/ports/): each service is given the ones it
 * uses (see its deps type); the SQL adapters in src/store implement them, one per aggregate.
 */

import type { ApiKeyStore } from './api-keys.js';
import type { BrownoutStore } from './brownouts.js';
import type { EventStore } from './events.js';
import type { IdempotencyStore } from './idempotency.js';
import type { InventoryStore } from './inventory.js';
import type { NoticeMailStore } from './mail.js';
import type { DraftStore, OrderStore } from './orders.js';
import type { ProductStore, RatingStore } from './products.js';
import type { SettingsStore } from './settings.js';
import type { ShapePort } from './shapes.js';
import type { UsagePort } from './usage.js';
import type { UserStore } from './users.js';
import type { WebhookStore } from './webhooks.js';

export type { ApiKeyStore, NewApiKey } from './api-keys.js';
export type { BrownoutStore, BrownoutWindow, NewBrownout } from './brownouts.js';
export type { EventSubscriptions } from './event-subscriptions.js';
export type { CommitHooks, EventPosition, EventStore, EventWakeups } from './events.js';
export type { ClaimCompletion, IdempotencyClaim, IdempotencyStore } from './idempotency.js';
export type {
  CallOptions,
  InventoryPort,
  InventoryStore,
  ReserveLine,
  ReserveOutcome,
  WatchedStock,
} from './inventory.js';
export type { KeysetQuery } from './keyset-query.js';
export type { ClaimedMail, ComposeMail, Mail, MailAttemptRecord, Mailer, NoticeMailStore } from './mail.js';
export type {
  DraftStore,
  NewOrder,
  OrderAllocation,
  OrderChange,
  OrderFilters,
  OrderRefusal,
  OrderStore,
} from './orders.js';
export type { ProductStore, RatingStore } from './products.js';
export type { SettingsStore } from './settings.js';
export type * from './shapes.js';
export type * from './usage.js';
export type { UserFields, UserStore } from './users.js';
export type * from './webhooks.js';

/** Every port of the storage: what the SQL store implements, and what the composition root hands out. */
export interface Store {
  settings: SettingsStore;
  users: UserStore;
  products: ProductStore;
  ratings: RatingStore;
  apiKeys: ApiKeyStore;
  orders: OrderStore;
  drafts: DraftStore;
  inventory: InventoryStore;
  /** Per-caller uses of deprecated and watched items, and the notices sent. */
  usage: UsagePort;
  /** What callers sent, as names, per protocol and day (the request-shape record). */
  shapes: ShapePort;
  idempotency: IdempotencyStore;
  /** Brownout windows of deprecated items. */
  brownouts: BrownoutStore;
  /** Reads of the outbox of events (written in the transactions of the changes). */
  events: EventStore;
  /** Webhook endpoints and their deliveries. */
  webhooks: WebhookStore;
  /** The e-mails of notices to callers, queued with their events. */
  noticeMails: NoticeMailStore;
}
