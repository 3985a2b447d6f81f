import type { IdempotencyClaim, Store } from '../core/ports.js';
import type { Database } from './database.js';
import { inventoryStore } from './inventory-store.js';
import { draftStore, orderStore } from './order-store.js';
import { productStore, ratingStore } from './product-store.js';
import { usageStore } from './usage-store.js';
import { apiKeyStore, userStore } from './user-store.js';

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
    idempotency: {
      async claim(caller, key, operation, fingerprint, since): Promise<IdempotencyClaim> {
        // A key older than 24 hours no longer counts: the first request of a new window takes it over.
        await db.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND created_at < $3', [
          caller,
          key,
          since,
        ]);
        const claimed = await db.query(
          `INSERT INTO idempotency_keys (caller, key, operation, fingerprint, state) VALUES ($1, $2, $3, $4, 'IN_PROGRESS')
           ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
          [caller, key, operation, fingerprint],
        );
        if (claimed.length > 0) return { kind: 'claimed' };
        const rows = await db.query('SELECT * FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
        const row = rows[0];
        if (!row) return this.claim(caller, key, operation, fingerprint, since);
        return row.state === 'COMPLETED'
          ? { kind: 'completed', fingerprint: row.fingerprint as string, result: row.result }
          : { kind: 'in-progress', fingerprint: row.fingerprint as string };
      },
      async complete(caller, key, result) {
        await db.query(`UPDATE idempotency_keys SET state = 'COMPLETED', result = $3 WHERE caller = $1 AND key = $2`, [
          caller,
          key,
          JSON.stringify(result),
        ]);
      },
      async purge(before) {
        const rows = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING key', [before]);
        return rows.length;
      },
      async abandon(caller, key) {
        await db.query(`DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS'`, [
          caller,
          key,
        ]);
      },
    },
  };
}
