import { MAX_STOCK } from '../core/inventory.js';
import type { Reservation } from '../core/model.js';
import type { ReserveOutcome, Store } from '../core/ports/index.js';
import type { Database, Queryable, Transaction } from './database.js';
import { type Outbox, writeEvents } from './outbox.js';
import { toReservation, toStock } from './rows.js';

/** Gives back every HELD reservation of an order (optionally of one SKU) to stock; returns them. */
export async function releaseHeld(tx: Queryable, orderId: number, sku?: string): Promise<Reservation[]> {
  const rows = await tx.query(
    `UPDATE reservations SET state = 'RELEASED', expires_at = NULL
      WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) AND state = 'HELD'
      RETURNING *`,
    [orderId, sku ?? null],
  );
  for (const row of rows) {
    await tx.query('UPDATE stock SET reserved = reserved - $2 WHERE sku = $1', [row.sku, row.quantity]);
  }
  return rows.map(toReservation);
}

/** Writes the `stock.changed` events of SKUs whose units changed in this transaction. */
export async function writeStockEvents(tx: Transaction, events: Outbox, skus: readonly string[]): Promise<void> {
  if (skus.length === 0) return;
  const rows = await tx.query('SELECT * FROM stock WHERE sku = ANY ($1::text[]) ORDER BY sku', [[...new Set(skus)]]);
  await writeEvents(
    tx,
    events.wakeups,
    rows.flatMap((row) => events.stockChanged(toStock(row))),
  );
}

/** Releases like releaseHeld, and writes the stock events of what it gave back. */
export async function releaseWithEvents(tx: Transaction, events: Outbox, orderId: number, sku?: string) {
  const released = await releaseHeld(tx, orderId, sku);
  await writeStockEvents(
    tx,
    events,
    released.map((reservation) => reservation.sku),
  );
  return released;
}

/** A keyset page of stock in SKU order. */
async function watchedStocks(db: Database, afterSku: string | null, sku: string | null, limit: number) {
  const rows = await db.query(WATCHED_STOCK, [afterSku, sku, limit]);
  return rows.map((row) => ({ stock: toStock(row), lastChangeSeq: Number(row.last_change_seq) }));
}

/** Stock rows with the last `stock.changed` seq of each (one statement: one snapshot; events_by_subject). */
const WATCHED_STOCK = `
  SELECT s.*, COALESCE((SELECT max(e.seq) FROM events e WHERE e.subject = 'sku:' || s.sku), 0) AS last_change_seq
    FROM stock s WHERE ($1::text IS NULL OR s.sku > $1) AND ($2::text IS NULL OR s.sku = $2)
   ORDER BY s.sku LIMIT $3`;

/** Stock and reservations in PostgreSQL; a reservation locks its stock row so concurrent ones queue. */
export function inventoryStore(db: Database, events: Outbox): Store['inventory'] {
  return {
    async stock(sku) {
      const rows = await db.query('SELECT * FROM stock WHERE sku = $1', [sku]);
      return rows[0] && toStock(rows[0]);
    },
    watchedStock: async (sku) => (await watchedStocks(db, null, sku, 1))[0],
    watchedStocks: (afterSku, limit) => watchedStocks(db, afterSku, null, limit),
    reserve(orderId, sku, quantity, expiresAt, beforeCommit): Promise<ReserveOutcome> {
      return db.transaction(async (tx) => {
        // Lock the stock row first: concurrent reservations of one SKU queue here, so the check below
        // and the increment are one atomic step on a server that truly runs them in parallel.
        const stockRows = await tx.query('SELECT * FROM stock WHERE sku = $1 FOR UPDATE', [sku]);
        const stockRow = stockRows[0];
        if (!stockRow) return { kind: 'unknown-sku' };
        const existing = await tx.query('SELECT * FROM reservations WHERE order_id = $1 AND sku = $2', [orderId, sku]);
        const previous = existing[0] && toReservation(existing[0]);
        if (previous && previous.state === 'HELD') {
          return previous.quantity === quantity
            ? { kind: 'reserved', reservation: previous, stock: toStock(stockRow), replayed: true }
            : { kind: 'mismatch', reservation: previous };
        }
        if (previous) return { kind: 'mismatch', reservation: previous };
        const updated = await tx.query(
          'UPDATE stock SET reserved = reserved + $2 WHERE sku = $1 AND on_hand - reserved >= $2 RETURNING *',
          [sku, quantity],
        );
        if (updated.length === 0) return { kind: 'insufficient', stock: toStock(stockRow) };
        const rows = await tx.query(
          `INSERT INTO reservations (order_id, sku, quantity, state, expires_at) VALUES ($1, $2, $3, 'HELD', $4) RETURNING *`,
          [orderId, sku, quantity, expiresAt],
        );
        await writeEvents(tx, events.wakeups, events.stockChanged(toStock(updated[0] as Record<string, unknown>)));
        beforeCommit?.();
        return {
          kind: 'reserved',
          reservation: toReservation(rows[0] as Record<string, unknown>),
          stock: toStock(updated[0] as Record<string, unknown>),
          replayed: false,
        };
      });
    },
    release(orderId, sku) {
      return db.transaction(async (tx) => {
        const released = await releaseWithEvents(tx, events, orderId, sku);
        if (released.length > 0) return released;
        // Releasing again is not an error: report what exists in its released state.
        const rows = await tx.query(
          'SELECT * FROM reservations WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) ORDER BY sku',
          [orderId, sku ?? null],
        );
        return rows.map(toReservation);
      });
    },
    async adjust(sku, delta, beforeCommit) {
      return db.transaction(async (tx) => {
        const current = await tx.query('SELECT * FROM stock WHERE sku = $1 FOR UPDATE', [sku]);
        if (current.length === 0) return 'unknown-sku' as const;
        // In bigint: on_hand + delta must not overflow the integer column before it is compared.
        const target = Number(current[0]?.on_hand) + delta;
        if (target > MAX_STOCK) return 'above-maximum' as const;
        const rows = await tx.query(
          'UPDATE stock SET on_hand = on_hand + $2::bigint WHERE sku = $1 AND on_hand + $2::bigint >= reserved RETURNING *',
          [sku, delta],
        );
        if (rows[0]) {
          await writeEvents(tx, events.wakeups, events.stockChanged(toStock(rows[0])));
          beforeCommit?.();
        }
        return rows[0] ? toStock(rows[0]) : ('below-reserved' as const);
      });
    },
    expire: (now) => db.transaction((tx) => expireHeld(tx, events, now)),
  };
}

/** Releases HELD reservations whose order never appeared before `now`. */
async function expireHeld(tx: Transaction, events: Outbox, now: Date): Promise<number> {
  const stale = await tx.query(
    `SELECT DISTINCT order_id FROM reservations WHERE state = 'HELD' AND expires_at IS NOT NULL AND expires_at < $1`,
    [now],
  );
  let released = 0;
  for (const row of stale) released += (await releaseWithEvents(tx, events, row.order_id as number)).length;
  return released;
}
