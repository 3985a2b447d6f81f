import { MAX_STOCK } from '../core/inventory/inventory.js';
import type { ReserveLine, ReserveOutcome, Store } from '../core/ports/index.js';
import type { Reservation, Stock } from '../core/shared/model.js';
import type { Database, Queryable, Transaction } from './database.js';
import { eventWriteSql } from './event-writes.js';
import { type Outbox, writeEvents } from './outbox.js';
import { toReservation, toStock } from './rows.js';

/**
 * Gives back every HELD reservation of an order (optionally of one SKU; with `unkeptOnly`, only those no
 * order kept: `expires_at` still set) to stock; returns them.
 */
export async function releaseHeld(
  tx: Queryable,
  orderId: number,
  sku?: string,
  unkeptOnly = false,
): Promise<Reservation[]> {
  const rows = await tx.query(
    `UPDATE reservations SET state = 'RELEASED', expires_at = NULL
      WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) AND state = 'HELD'
        AND (NOT $3 OR expires_at IS NOT NULL)
      RETURNING *`,
    [orderId, sku ?? null, unkeptOnly],
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
export async function releaseWithEvents(
  tx: Transaction,
  events: Outbox,
  orderId: number,
  sku?: string,
  unkeptOnly = false,
) {
  const released = await releaseHeld(tx, orderId, sku, unkeptOnly);
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
    stock: (sku) => db.query('SELECT * FROM stock WHERE sku = $1', [sku]).then((rows) => rows[0] && toStock(rows[0])),
    watchedStock: async (sku) => (await watchedStocks(db, null, sku, 1))[0],
    watchedStocks: (afterSku, limit) => watchedStocks(db, afterSku, null, limit),
    reserve: (orderId, lines, expiresAt, beforeCommit) =>
      reserveLines(db, events, orderId, lines, expiresAt, beforeCommit).catch((error: unknown) => {
        // A concurrent call for the same order and SKU wrote its reservation first: the second run sees it.
        if (!(error instanceof RaceLost)) throw error;
        return reserveLines(db, events, orderId, lines, expiresAt, beforeCommit);
      }),
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

/** Releases HELD reservations that no order kept and whose time ran out before `now`. */
async function expireHeld(tx: Transaction, events: Outbox, now: Date): Promise<number> {
  const stale = await tx.query(
    `SELECT DISTINCT order_id FROM reservations WHERE state = 'HELD' AND expires_at IS NOT NULL AND expires_at < $1`,
    [now],
  );
  let released = 0;
  for (const row of stale) released += (await releaseUnkept(tx, events, row.order_id as number)).length;
  return released;
}

/**
 * Releases the HELD reservations of an order that no order kept, with their stock events: the expiry
 * sweep and a dead idempotency claim give stock back this way. The condition is the fence against an
 * order committing at the same moment: once the order's statement kept a reservation (cleared
 * `expires_at`), a release waiting on its row re-reads it and leaves it alone.
 */
export const releaseUnkept = (tx: Transaction, events: Outbox, orderId: number): Promise<Reservation[]> =>
  releaseWithEvents(tx, events, orderId, undefined, true);

/** A reservation of the same order and SKU was written by a concurrent call after this one looked. */
class RaceLost extends Error {}

/** What the locking read finds of each SKU: its stock and what the order holds of it already. */
interface LockedSku {
  stock: Stock;
  held: Reservation | undefined;
}

/**
 * Reserves lines in one transaction of four round trips: BEGIN, one statement that locks the SKUs in
 * sorted order and reads what the order holds of them, one statement that writes every new reservation
 * with its stock and `stock.changed` events, COMMIT. Nothing is written unless every line can be held.
 */
function reserveLines(
  db: Database,
  events: Outbox,
  orderId: number,
  lines: readonly ReserveLine[],
  expiresAt: Date,
  beforeCommit: (() => void) | undefined,
): Promise<ReserveOutcome> {
  const sorted = [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  return db.transaction(async (tx) => {
    const locked = await lockSkus(tx, orderId, sorted);
    const fresh: Array<{ line: ReserveLine; after: Stock }> = [];
    for (const line of sorted) {
      const found = locked.get(line.sku);
      if (!found) return { kind: 'unknown-sku', sku: line.sku };
      const { stock, held } = found;
      if (held) {
        if (held.state !== 'HELD' || held.quantity !== line.quantity) return { kind: 'mismatch', reservation: held };
        continue;
      }
      if (stock.onHand - stock.reserved < line.quantity)
        return { kind: 'insufficient', stock, quantity: line.quantity };
      fresh.push({ line, after: { ...stock, reserved: stock.reserved + line.quantity } });
    }
    const written =
      fresh.length === 0 ? new Map<string, Date>() : await writeReservations(tx, events, orderId, fresh, expiresAt);
    beforeCommit?.();
    const afterOf = new Map(fresh.map(({ line, after }) => [line.sku, after]));
    return {
      kind: 'reserved',
      replayed: fresh.length === 0,
      stocks: sorted.map((line) => afterOf.get(line.sku) ?? (locked.get(line.sku) as LockedSku).stock),
      reservations: sorted.map((line) => {
        const createdAt = written.get(line.sku);
        if (createdAt === undefined) return (locked.get(line.sku) as LockedSku).held as Reservation;
        return { orderId, sku: line.sku, quantity: line.quantity, state: 'HELD', createdAt, expiresAt };
      }),
    };
  });
}

/** Locks the stock rows of the lines in SKU order, with what the order holds of each. */
async function lockSkus(tx: Transaction, orderId: number, sorted: readonly ReserveLine[]) {
  const rows = await tx.query(
    `SELECT s.sku, s.on_hand, s.reserved, r.order_id, r.quantity, r.state, r.created_at, r.expires_at
       FROM stock s LEFT JOIN reservations r ON r.order_id = $1 AND r.sku = s.sku
      WHERE s.sku = ANY ($2::text[]) ORDER BY s.sku FOR UPDATE OF s`,
    [orderId, sorted.map((line) => line.sku)],
  );
  return new Map<string, LockedSku>(
    rows.map((row) => [
      row.sku as string,
      { stock: toStock(row), held: row.order_id === null ? undefined : toReservation(row) },
    ]),
  );
}

/**
 * Writes the new reservations, their stock and their events in one statement; the events carry the stock
 * after the change, computed under the row locks this transaction holds. Returns when each was created.
 */
async function writeReservations(
  tx: Transaction,
  events: Outbox,
  orderId: number,
  fresh: ReadonlyArray<{ line: ReserveLine; after: Stock }>,
  expiresAt: Date,
): Promise<Map<string, Date>> {
  const written = eventWriteSql(
    fresh.flatMap(({ after }) => events.stockChanged(after)),
    events.wakeups.notifyChannel,
    5,
  );
  const rows = await tx.query<{ sku: string; created_at: Date; notified: number }>(
    `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::int[]) AS wanted(sku, quantity)),
     held AS (UPDATE stock s SET reserved = s.reserved + w.quantity FROM wanted w WHERE s.sku = w.sku RETURNING s.sku),
     kept AS (INSERT INTO reservations (order_id, sku, quantity, state, expires_at)
              SELECT $3, sku, quantity, 'HELD', $4 FROM wanted ON CONFLICT DO NOTHING RETURNING sku, created_at),
     ${written.ctes.join(',\n')}
     SELECT sku, created_at, ${written.touch} AS notified FROM kept`,
    [fresh.map(({ line }) => line.sku), fresh.map(({ line }) => line.quantity), orderId, expiresAt, ...written.params],
  );
  if (rows.length < fresh.length) throw new RaceLost();
  await events.wakeups.announce(tx);
  return new Map(rows.map((row) => [row.sku, row.created_at]));
}
