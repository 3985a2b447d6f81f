import type { Store } from '../core/ports/index.js';
import { apiKeyStore } from './api-key-store.js';
import { brownoutStore } from './brownout-store.js';
import type { Database } from './database.js';
import { eventStore } from './event-store.js';
import { idempotencyStore } from './idempotency-store.js';
import { inventoryStore } from './inventory-store.js';
import { draftStore, orderStore } from './order-store.js';
import { productStore, ratingStore } from './product-store.js';
import { usageStore } from './usage-store.js';
import { userStore } from './user-store.js';

/** The PostgreSQL implementation of the core's store port (PGlite or a server: same SQL). */
export function createSqlStore(db: Database): Store {
  return {
    settings: {
      async get(key) {
        const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
        return rows[0]?.value;
      },
      async putIfAbsent(key, value) {
        await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
        const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
        return rows[0]?.value ?? value;
      },
    },

    users: userStore(db),
    products: productStore(db),
    ratings: ratingStore(db),
    apiKeys: apiKeyStore(db),
    orders: orderStore(db),
    drafts: draftStore(db),
    inventory: inventoryStore(db),
    usage: usageStore(db),
    idempotency: idempotencyStore(db),
    brownouts: brownoutStore(db),
    events: eventStore(db),
  };
}
