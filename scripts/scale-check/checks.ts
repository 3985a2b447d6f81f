import pg from 'pg';
import { SERVED_BY } from './haproxy-config.js';
import type { Instance } from './instances.js';
import type { Placement } from './load.js';

/** What the database holds after the load, against what the clients were told. */
export interface DatabaseFigures {
  acknowledged: number;
  lost: number;
  duplicated: number;
  /** Orders written whose client never got an answer with them (a retry gave up or was refused). */
  unacknowledgedWritten: number;
  onHand: number;
  reserved: number;
  /** Units the orders of the placements' product hold. */
  ordered: number;
  /** Held reservations of the orders' SKU that belong to no order (a killed attempt not yet released). */
  orphanHeld: number;
  /** What the idempotent Reserve of one order line left reserved (1 when exact). */
  reserveReserved: number;
}

/** Reads the orders (by the note that carries each placement's key) and the stock, and compares. */
export async function checkDatabase(
  url: string,
  placements: Placement[],
  skus: { orderSku: string; reserveSku: string },
): Promise<DatabaseFigures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orders = await client.query<{ note: string; ids: string[] }>(
      'SELECT note, array_agg(id::text) AS ids FROM orders WHERE note IS NOT NULL GROUP BY note',
    );
    const byKey = new Map(orders.rows.map((row) => [row.note, row.ids.map(Number)]));
    const acknowledged = placements.filter((placement) => placement.orderId !== undefined);
    const stock = async (sku: string) =>
      (
        await client.query<{ on_hand: number; reserved: number }>(
          'SELECT on_hand, reserved FROM stock WHERE sku = $1',
          [sku],
        )
      ).rows[0] ?? { on_hand: Number.NaN, reserved: Number.NaN };
    const sum = async (sql: string) =>
      Number((await client.query<{ n: string }>(sql, [skus.orderSku])).rows[0]?.n ?? 0);
    const orderStock = await stock(skus.orderSku);
    return {
      acknowledged: acknowledged.length,
      lost: acknowledged.filter((placement) => !byKey.get(placement.key)?.includes(placement.orderId as number)).length,
      duplicated: [...byKey.values()].reduce((total, ids) => total + ids.length - 1, 0),
      unacknowledgedWritten: placements.filter(
        (placement) => placement.orderId === undefined && byKey.has(placement.key),
      ).length,
      onHand: orderStock.on_hand,
      reserved: orderStock.reserved,
      ordered: await sum('SELECT coalesce(sum(quantity), 0) AS n FROM order_items WHERE sku = $1'),
      orphanHeld: await sum(
        `SELECT coalesce(sum(quantity), 0) AS n FROM reservations r WHERE sku = $1 AND state = 'HELD'
           AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = r.order_id)`,
      ),
      reserveReserved: (await stock(skus.reserveSku)).reserved,
    };
  } finally {
    await client.end();
  }
}

/** A burst of one customer key's reads through the load balancer, against its budget. */
export interface BudgetFigures {
  sent: number;
  accepted: number;
  refused: number;
  /** The budget plus what it refilled during the burst: what one shared budget lets through. */
  allowed: number;
  instancesReached: number;
}

/**
 * Sends `limit × 3` reads of one customer key through `httpUrl`, 8 at a time, and counts the 200s and
 * 429s: with one budget in Redis the instances let `limit` (plus the refill) through, not three times it.
 */
export async function burstOneKey(
  httpUrl: string,
  adminKey: string,
  userId: number,
  productId: number,
  { limit, windowSeconds }: { limit: number; windowSeconds: number },
): Promise<BudgetFigures> {
  const issued = await fetch(`${httpUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ userId, role: 'customer', label: 'scale-check burst' }),
  });
  if (issued.status !== 201) throw new Error(`issuing the burst key answered ${issued.status}`);
  const { key } = (await issued.json()) as { key: string };
  const sent = limit * 3;
  const statuses: number[] = [];
  const instances = new Set<string>();
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < sent) {
        const answer = await fetch(`${httpUrl}/v1/products/${productId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        await answer.arrayBuffer();
        statuses.push(answer.status);
        instances.add(answer.headers.get(SERVED_BY) ?? '?');
      }
    }),
  );
  const elapsedSeconds = (Date.now() - started) / 1000;
  return {
    sent,
    accepted: statuses.filter((status) => status === 200).length,
    refused: statuses.filter((status) => status === 429).length,
    allowed: limit + Math.floor((elapsedSeconds * limit) / windowSeconds),
    instancesReached: instances.size,
  };
}

/**
 * Schedules a brownout window of `item` (the deprecated `GET /v1/products`) through the load balancer,
 * starting in a second, and asks every instance directly once it runs: each must refuse with 410 BROWNOUT.
 */
export async function brownoutOnEveryInstance(
  httpUrl: string,
  adminKey: string,
  item: string,
  instances: Instance[],
  refreshMs: number,
): Promise<{ before: boolean; held: string[]; missed: string[] }> {
  const headers = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
  const refused = async (base: string) => {
    const answer = await fetch(`${base}/v1/products?size=1`, { headers });
    return answer.status === 410 && ((await answer.json()) as { code?: string }).code === 'BROWNOUT';
  };
  const before = !(await refused(instances[0]?.httpUrl as string));
  const startsAt = new Date(Date.now() + 1000);
  const scheduled = await fetch(`${httpUrl}/v1/brownouts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      item,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 600_000).toISOString(),
      note: 'scale check',
    }),
  });
  if (scheduled.status !== 201) {
    throw new Error(`scheduling the brownout answered ${scheduled.status}: ${await scheduled.text()}`);
  }
  // Every instance reloads the windows every BROWNOUT_REFRESH_MS.
  await new Promise((resolve) => setTimeout(resolve, startsAt.getTime() - Date.now() + refreshMs + 300));
  const held: string[] = [];
  const missed: string[] = [];
  for (const instance of instances) ((await refused(instance.httpUrl)) ? held : missed).push(instance.name);
  return { before, held, missed };
}
