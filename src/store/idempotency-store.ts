import type { IdempotencyClaim, Store } from '../core/ports/index.js';
import type { Database, Transaction } from './database.js';
import { releaseWithEvents } from './inventory-store.js';
import type { Outbox } from './outbox.js';

/**
 * Releases the stock a dropped claim held, unless its order was written after all; returns the ids of
 * the orders that were written (the work finished but its claim never completed).
 */
async function releaseOrphaned(tx: Transaction, events: Outbox, heldOrderIds: unknown[]): Promise<number[]> {
  const written: number[] = [];
  for (const orderId of heldOrderIds) {
    if (orderId === null || orderId === undefined) continue;
    const rows = await tx.query('SELECT 1 FROM orders WHERE id = $1', [orderId]);
    if (rows.length === 0) await releaseWithEvents(tx, events, Number(orderId));
    else written.push(Number(orderId));
  }
  return written;
}

/**
 * Drops the key's row when it no longer counts (older than `since`) or its claim is dead (in progress since
 * before `leaseStart`, or ended), releasing the stock a dead claim held; returns the order a dead claim of
 * this same request wrote, which the new claim answers with.
 */
function takeOverDead(
  db: Database,
  events: Outbox,
  caller: string,
  key: string,
  fingerprint: string,
  since: Date,
  leaseStart: Date,
  endedToken: string | undefined,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const dropped = await tx.query(
      `DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2
          AND (created_at < $3 OR (state = 'IN_PROGRESS'
            AND (created_at < $4 OR ended_at IS NOT NULL OR created_at::text = $5)))
        RETURNING held_order_id, state, fingerprint`,
      [caller, key, since, leaseStart, endedToken ?? null],
    );
    const dead = dropped.filter((row) => row.state === 'IN_PROGRESS');
    const written = await releaseOrphaned(
      tx,
      events,
      dead.map((row) => row.held_order_id),
    );
    return dead.some((row) => row.fingerprint === fingerprint) ? written[0] : undefined;
  });
}

/** Idempotency keys in PostgreSQL: one row per (caller, key), claimed IN_PROGRESS, then COMPLETED with its result. */
export function idempotencyStore(db: Database, events: Outbox): Store['idempotency'] {
  return {
    async claim(caller, key, operation, fingerprint, since, leaseStart, endedToken): Promise<IdempotencyClaim> {
      // A key older than 24 hours no longer counts, nor does a claim whose lease ran out: the request
      // that comes now takes it over, and the stock of the dead claim goes back.
      // The order a dead claim of this same request wrote is handed to the new claim, so that the retry
      // answers with it instead of placing a second one.
      const heldOrderId = await takeOverDead(db, events, caller, key, fingerprint, since, leaseStart, endedToken);
      const claimed = await db.query(
        `INSERT INTO idempotency_keys (caller, key, operation, fingerprint, state, held_order_id)
         VALUES ($1, $2, $3, $4, 'IN_PROGRESS', $5)
         ON CONFLICT (caller, key) DO NOTHING RETURNING created_at::text AS token`,
        [caller, key, operation, fingerprint, heldOrderId ?? null],
      );
      const token = claimed[0]?.token as string | undefined;
      if (token !== undefined) return { kind: 'claimed', token, ...(heldOrderId === undefined ? {} : { heldOrderId }) };
      const rows = await db.query('SELECT * FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
      const row = rows[0];
      if (!row) return this.claim(caller, key, operation, fingerprint, since, leaseStart, endedToken);
      return row.state === 'COMPLETED'
        ? { kind: 'completed', fingerprint: row.fingerprint as string, result: row.result }
        : { kind: 'in-progress', fingerprint: row.fingerprint as string, claimedAt: row.created_at as Date };
    },
    async end(caller, key, token) {
      await db.query(
        `UPDATE idempotency_keys SET ended_at = now()
          WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS' AND created_at::text = $3`,
        [caller, key, token],
      );
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
        // A dead claim whose order was written is kept: its outcome is that order, and the retry with the
        // key takes the claim over and answers with it (claim above). Dropping it here would let the retry
        // place a second order. The 24-hour purge forgets it with the other keys.
        const dropped = await tx.query(
          `DELETE FROM idempotency_keys k WHERE state = 'IN_PROGRESS' AND created_at < $1
              AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = k.held_order_id)
            RETURNING held_order_id`,
          [leaseStart],
        );
        await releaseOrphaned(
          tx,
          events,
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
