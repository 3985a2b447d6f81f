import type { IdempotencyClaim, Store } from '../core/ports.js';
import type { Database, Queryable } from './database.js';
import { releaseHeld } from './inventory-store.js';

/** Releases the stock a dropped claim held, unless its order was written after all. */
async function releaseOrphaned(tx: Queryable, heldOrderIds: unknown[]): Promise<void> {
  for (const orderId of heldOrderIds) {
    if (orderId === null || orderId === undefined) continue;
    const written = await tx.query('SELECT 1 FROM orders WHERE id = $1', [orderId]);
    if (written.length === 0) await releaseHeld(tx, Number(orderId));
  }
}

/** Idempotency keys in PostgreSQL: one row per (caller, key), claimed IN_PROGRESS, then COMPLETED with its result. */
export function idempotencyStore(db: Database): Store['idempotency'] {
  return {
    async claim(caller, key, operation, fingerprint, since, leaseStart): Promise<IdempotencyClaim> {
      // A key older than 24 hours no longer counts, nor does a claim whose lease ran out: the request
      // that comes now takes it over, and the stock of the dead claim goes back.
      await db.transaction(async (tx) => {
        const dropped = await tx.query(
          `DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2
              AND (created_at < $3 OR (state = 'IN_PROGRESS' AND created_at < $4))
            RETURNING held_order_id`,
          [caller, key, since, leaseStart],
        );
        await releaseOrphaned(
          tx,
          dropped.map((row) => row.held_order_id),
        );
      });
      const claimed = await db.query(
        `INSERT INTO idempotency_keys (caller, key, operation, fingerprint, state) VALUES ($1, $2, $3, $4, 'IN_PROGRESS')
         ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
        [caller, key, operation, fingerprint],
      );
      if (claimed.length > 0) return { kind: 'claimed' };
      const rows = await db.query('SELECT * FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
      const row = rows[0];
      if (!row) return this.claim(caller, key, operation, fingerprint, since, leaseStart);
      return row.state === 'COMPLETED'
        ? { kind: 'completed', fingerprint: row.fingerprint as string, result: row.result }
        : { kind: 'in-progress', fingerprint: row.fingerprint as string };
    },
    async hold(caller, key, orderId) {
      await db.query(
        `UPDATE idempotency_keys SET held_order_id = $3 WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS'`,
        [caller, key, orderId],
      );
    },
    async complete(caller, key, result) {
      await db.query(
        `UPDATE idempotency_keys SET state = 'COMPLETED', result = $3, held_order_id = NULL WHERE caller = $1 AND key = $2`,
        [caller, key, JSON.stringify(result)],
      );
    },
    async purge(before) {
      const rows = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING key', [before]);
      return rows.length;
    },
    expireLeases(leaseStart) {
      return db.transaction(async (tx) => {
        const dropped = await tx.query(
          `DELETE FROM idempotency_keys WHERE state = 'IN_PROGRESS' AND created_at < $1 RETURNING held_order_id`,
          [leaseStart],
        );
        await releaseOrphaned(
          tx,
          dropped.map((row) => row.held_order_id),
        );
        return dropped.length;
      });
    },
    async abandon(caller, key) {
      await db.query(`DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS'`, [
        caller,
        key,
      ]);
    },
  };
}
