/**
 * The ports of the core, one file per aggregate (src/core/ports/): each service is given the ones it
 * uses (see its deps type); the SQL adapters in src/store implement them, one per aggregate.
 */

import type { ApiKeyStore } from './ports/api-keys.js';
import type { BrownoutStore } from './ports/brownouts.js';
import type { IdempotencyStore } from './ports/idempotency.js';
import type { InventoryStore } from './ports/inventory.js';
import type { DraftStore, OrderStore } from './ports/orders.js';
import type { ProductStore, RatingStore } from './ports/products.js';
import type { SettingsStore } from './ports/settings.js';
import type { UserStore } from './ports/users.js';
import type { UsagePort } from './usage-port.js';

export type { ApiKeyStore } from './ports/api-keys.js';
export type { BrownoutStore, BrownoutWindow, NewBrownout } from './ports/brownouts.js';
export type { IdempotencyClaim, IdempotencyStore } from './ports/idempotency.js';
export type { CallOptions, InventoryPort, InventoryStore, ReserveOutcome } from './ports/inventory.js';
export type { KeysetQuery } from './ports/keyset-query.js';
export type { DraftStore, NewOrder, OrderChange, OrderFilters, OrderStore } from './ports/orders.js';
export type { ProductStore, RatingStore } from './ports/products.js';
export type { SettingsStore } from './ports/settings.js';
export type { UserFields, UserStore } from './ports/users.js';

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
  idempotency: IdempotencyStore;
  /** Brownout windows of deprecated items. */
  brownouts: BrownoutStore;
}
