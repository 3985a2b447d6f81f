import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { LoadRecord, LoadTarget } from '../scale-check/load.js';

/** The idempotency lease of the chaos run's instance: short, so that quiet comes soon. */
export const LEASE_SECONDS = 5;

/** What a write may answer during a fault: success, or a documented refusal the client retries. */
const DOCUMENTED_WRITE = new Set([200, 201, 409, 429, 503, 504]);
const DOCUMENTED_READ = new Set([200, 429, 503, 504]);
const DOCUMENTED_GRPC = new Set(['OK', 'Unavailable', 'DeadlineExceeded', 'ResourceExhausted']);

interface Run {
  databaseUrl: string;
  httpUrl: string;
  adminKey: string;
  target: LoadTarget;
  record: LoadRecord;
}

/**
 * Waits for quiet (two leases and a sweep), then checks and prints each invariant of the run; returns the
 * breaches. Read from the database directly, not through the proxy.
 */
export async function checkInvariants({ databaseUrl, httpUrl, target, record }: Run): Promise<string[]> {
  const breaches: string[] = [];
  const check = (rule: string, held: boolean, detail: string) => {
    console.log(`${held ? 'held   ' : 'BREACH '} ${rule}: ${detail}`);
    if (!held) breaches.push(`${rule}: ${detail}`);
  };
  await sleep((2 * LEASE_SECONDS + 2) * 1000);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const acknowledged = record.placements.filter((placement) => placement.orderId !== undefined);
    const orders = await db.query<{ id: string; note: string }>('SELECT id, note FROM orders');
    const byKey = new Map<string, string[]>();
    for (const order of orders.rows) byKey.set(order.note, [...(byKey.get(order.note) ?? []), order.id]);
    const lost = acknowledged.filter((placement) => !byKey.get(placement.key)?.includes(String(placement.orderId)));
    check('no order lost', lost.length === 0, `${acknowledged.length} acknowledged, ${lost.length} missing`);
    const twice = [...byKey.values()].filter((ids) => ids.length > 1);
    check('no order duplicated', twice.length === 0, `${orders.rowCount} orders, ${twice.length} keys with two`);
    const unplaced = record.placements.filter((placement) => placement.orderId === undefined);
    check(
      'every placement ends',
      unplaced.length === 0,
      `${unplaced.map((p) => p.refused ?? 'gave up').join(', ') || 'all placed'}`,
    );

    const undocumented = record.attempts.filter((attempt) =>
      attempt.kind === 'grpc'
        ? !DOCUMENTED_GRPC.has(String(attempt.status))
        : attempt.error !== undefined ||
          !(attempt.kind === 'write' ? DOCUMENTED_WRITE : DOCUMENTED_READ).has(Number(attempt.status)),
    );
    const kinds = [...new Set(undocumented.map((a) => `${a.kind} ${a.status ?? a.error}`))].join(', ');
    check(
      'failures are documented answers',
      undocumented.length === 0,
      `${record.attempts.length} attempts; ${kinds || 'none other'}`,
    );

    const stock = await db.query<{ on_hand: number; reserved: number; held: number; kept: number; orphans: number }>(
      `SELECT s.on_hand, s.reserved,
              (SELECT COALESCE(sum(quantity), 0)::int FROM reservations WHERE sku = s.sku AND state = 'HELD') AS held,
              (SELECT COALESCE(sum(quantity), 0)::int FROM reservations r WHERE r.sku = s.sku AND r.state = 'HELD'
                  AND r.expires_at IS NULL AND EXISTS (SELECT 1 FROM orders o WHERE o.id = r.order_id)) AS kept,
              (SELECT COALESCE(sum(quantity), 0)::int FROM reservations r WHERE r.sku = s.sku AND r.state = 'HELD'
                  AND r.expires_at IS NOT NULL) AS orphans
         FROM stock s WHERE s.sku = $1`,
      [target.orderSku],
    );
    const items = await db.query<{ quantity: number }>(
      'SELECT COALESCE(sum(quantity), 0)::int AS quantity FROM order_items WHERE sku = $1',
      [target.orderSku],
    );
    const row = stock.rows[0];
    const ordered = items.rows[0]?.quantity ?? 0;
    const exact =
      row !== undefined &&
      row.reserved === row.held &&
      row.kept === ordered &&
      row.held === row.kept + row.orphans &&
      row.on_hand >= row.reserved &&
      row.reserved >= 0;
    check(
      'stock exact at quiet',
      exact,
      `reserved ${row?.reserved} = held ${row?.held} = ${row?.kept} for the ${ordered} units ordered + ${row?.orphans} waiting to expire (writes of unknown outcome)`,
    );
    const stuck = await db.query(
      `SELECT key FROM idempotency_keys WHERE state = 'IN_PROGRESS' AND created_at < now() - make_interval(secs => $1)`,
      [2 * LEASE_SECONDS],
    );
    check('no idempotency key stuck past its lease', stuck.rowCount === 0, `${stuck.rowCount} in progress past it`);
  } finally {
    await db.end();
  }
  const ready = await fetch(`${httpUrl}/health/ready`).then(
    (answer) => answer.status,
    () => 0,
  );
  check('the instance serves after the faults', ready === 200, `/health/ready ${ready}`);
  return breaches;
}
