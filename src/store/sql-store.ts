import { createEventPolicy, type EventPolicy } from '../core/events/event-policy.js';
import type { Store } from '../core/ports/index.js';
import { apiKeyStore } from './api-key-store.js';
import { brownoutStore } from './brownout-store.js';
import type { Database } from './database.js';
import { eventStore } from './event-store.js';
import { notifyWakeups } from './event-wakeups.js';
import { idempotencyStore } from './idempotency-store.js';
import { inventoryStore } from './inventory-store.js';
import { noticeMailStore } from './notice-mail-store.js';
import { draftStore, orderStore } from './order-store.js';
import type { Outbox } from './outbox.js';
import { productStore, ratingStore } from './product-store.js';
import { shapeStore } from './shape-store.js';
import { usageStore } from './usage-store.js';
import { userStore } from './user-store.js';
import { webhookStore } from './webhook-store.js';

/**
 * The PostgreSQL implementation of the core's store port (PGlite or a server: same SQL). `policy` is the
 * core's event policy, applied inside each writing transaction (the composition root passes the
 * configured VAT rate; 0.1, the default rate, otherwise); `wakeups` announce the events written
 * (PostgreSQL NOTIFY unless the composition root passes Redis's).
 */
export function createSqlStore(
  db: Database,
  policy: EventPolicy = createEventPolicy({ vatRate: 0.1 }),
  wakeups: Outbox['wakeups'] = notifyWakeups(db),
): Store {
  const events = { ...policy, wakeups };
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
    orders: orderStore(db, events),
    drafts: draftStore(db),
    inventory: inventoryStore(db, events),
    usage: usageStore(db, events),
    shapes: shapeStore(db),
    idempotency: idempotencyStore(db, events),
    brownouts: brownoutStore(db, events),
    events: eventStore(db),
    webhooks: webhookStore(db, wakeups),
    noticeMails: noticeMailStore(db),
  };
}
