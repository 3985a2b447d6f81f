/**
 * The request-shape record in PostgreSQL (migration 0029): additive upserts, so any number of instances can
 * write at once, and one transaction per flush.
 */
import type { KeyShape, ShapeCount, ShapeCoverage, ShapePort, ShapeProtocol, ShapeUse } from '../core/ports/shapes.js';
import type { Database, Queryable } from './database.js';
import { storeSignatures } from './shape-signatures.js';

const SHAPE_ROWS = `SELECT s.protocol, s.shape, s.day::text AS day, s.api_key_id, s.client, s.count, s.first_seen,
       s.last_seen, k.label AS key_label, users.name AS owner_name, users.email AS owner_email
  FROM request_shapes s
  LEFT JOIN api_keys k ON k.id = s.api_key_id
  LEFT JOIN users ON users.id = k.user_id`;

/** The record of request shapes. */
export function shapeStore(db: Database): ShapePort {
  return {
    async add(counts, flush, limits) {
      const rows = [...counts].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      return db.transaction(async (tx) => {
        const stored = await storeSignatures(tx, flush.signatures, limits);
        // A count naming a signature that is not stored (the table is full) is dropped, and counted.
        const named = (row: ShapeCount) => row.protocol === 'graphql' && row.shape.startsWith('sig:');
        const kept = rows.filter((row) => !named(row) || stored.has(row.shape.slice(4)));
        let refused = 0;
        const drops = new Map<string, { protocol: ShapeProtocol; day: string; count: number }>();
        for (const drop of flush.dropped) drops.set(`${drop.protocol} ${drop.day}`, { ...drop });
        for (const row of rows) {
          if (!named(row) || stored.has(row.shape.slice(4))) continue;
          const drop = drops.get(`graphql ${row.day}`) ?? { protocol: 'graphql' as const, day: row.day, count: 0 };
          drop.count += row.count;
          refused += row.count;
          drops.set(`graphql ${row.day}`, drop);
        }
        if (kept.length > 0) await addCounts(tx, kept);
        if (drops.size > 0) await addDrops(tx, [...drops.values()], flush.instance);
        await tx.query(
          `INSERT INTO request_shape_recorders (instance, day, flushes, first_seen, last_seen)
           SELECT $1::text, day, 1, $3::timestamptz, $3::timestamptz FROM unnest($2::date[]) AS d (day)
           ON CONFLICT (instance, day) DO UPDATE SET flushes = request_shape_recorders.flushes + 1,
             last_seen = GREATEST(request_shape_recorders.last_seen, EXCLUDED.last_seen)`,
          [flush.instance, [...new Set(flush.days)].sort(), flush.at.toISOString()],
        );
        return refused;
      });
    },

    async register({ instance, at }) {
      await db.query(
        `INSERT INTO request_shape_recorders (instance, day, flushes, first_seen, last_seen)
         VALUES ($1, $2::date, 0, $3, $3)
         ON CONFLICT (instance, day) DO UPDATE SET
           last_seen = GREATEST(request_shape_recorders.last_seen, EXCLUDED.last_seen)`,
        [instance, at.toISOString().slice(0, 10), at.toISOString()],
      );
    },

    async uses({ sinceDay, protocol, shapes, prefix }) {
      const rows = await db.query<Record<string, unknown>>(
        `${SHAPE_ROWS} WHERE s.day >= $1::date AND ($2::text IS NULL OR s.protocol = $2)
            AND ($3::text[] IS NULL OR s.shape = ANY($3::text[]))
            AND ($4::text IS NULL OR starts_with(s.shape, $4))
          ORDER BY s.protocol, s.shape, s.api_key_id, s.client, s.day`,
        [sinceDay, protocol ?? null, shapes ?? null, prefix ?? null],
      );
      return rows.map(toShapeUse);
    },

    async signatures(hashes) {
      if (hashes.length === 0) return [];
      return db.query<{ hash: string; signature: string }>(
        'SELECT hash, signature FROM request_shape_signatures WHERE hash = ANY($1::text[]) ORDER BY hash',
        [hashes],
      );
    },

    coverage: (sinceDay) => readCoverage(db, sinceDay),

    keyShapes: (apiKeyId, query) => readKeyShapes(db, apiKeyId, query),

    async purge(beforeDay) {
      await db.transaction(async (tx) => {
        await tx.query('DELETE FROM request_shapes WHERE day < $1::date', [beforeDay]);
        await tx.query('DELETE FROM request_shapes_dropped WHERE day < $1::date', [beforeDay]);
        await tx.query('DELETE FROM request_shape_recorders WHERE day < $1::date', [beforeDay]);
        await tx.query(
          `DELETE FROM request_shape_signatures g WHERE NOT EXISTS (
             SELECT 1 FROM request_shapes s WHERE s.protocol = 'graphql' AND s.shape = 'sig:' || g.hash)`,
        );
      });
    },
  };
}

/** One key's shapes over a period, summed over the days, each with its signature's text. */
async function readKeyShapes(
  db: Database,
  apiKeyId: number,
  { sinceDay, protocol }: { sinceDay: string; protocol?: ShapeProtocol },
): Promise<KeyShape[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT s.protocol, s.shape, g.signature, sum(s.count)::bigint AS uses, min(s.first_seen) AS first_seen,
              max(s.last_seen) AS last_seen, array_agg(DISTINCT s.client) AS clients
         FROM request_shapes s
         LEFT JOIN request_shape_signatures g ON s.protocol = 'graphql' AND g.hash = substr(s.shape, 5)
        WHERE s.api_key_id = $1 AND s.day >= $2::date AND ($3::text IS NULL OR s.protocol = $3)
        GROUP BY s.protocol, s.shape, g.signature`,
    [apiKeyId, sinceDay, protocol ?? null],
  );
  return rows.map((row) => ({
    protocol: row.protocol as ShapeProtocol,
    shape: row.shape as string,
    signature: (row.signature as string | null) ?? null,
    uses: Number(row.uses),
    firstSeen: new Date(row.first_seen as string),
    lastSeen: new Date(row.last_seen as string),
    clients: [...(row.clients as string[])].sort(),
  }));
}

async function addCounts(tx: Queryable, rows: ShapeCount[]): Promise<void> {
  await tx.query(
    `INSERT INTO request_shapes (protocol, shape, day, api_key_id, client, count, first_seen, last_seen)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::bigint[], $5::text[], $6::bigint[],
                          $7::timestamptz[], $8::timestamptz[])
     ON CONFLICT (protocol, shape, day, api_key_id, client) DO UPDATE SET
       count = request_shapes.count + EXCLUDED.count,
       first_seen = LEAST(request_shapes.first_seen, EXCLUDED.first_seen),
       last_seen = GREATEST(request_shapes.last_seen, EXCLUDED.last_seen)`,
    [
      rows.map((row) => row.protocol),
      rows.map((row) => row.shape),
      rows.map((row) => row.day),
      rows.map((row) => row.apiKeyId),
      rows.map((row) => row.client),
      rows.map((row) => row.count),
      rows.map((row) => row.firstSeen.toISOString()),
      rows.map((row) => row.lastSeen.toISOString()),
    ],
  );
}

async function addDrops(tx: Queryable, drops: { protocol: string; day: string; count: number }[], instance: string) {
  const sorted = [...drops].sort((a, b) => `${a.protocol} ${a.day}`.localeCompare(`${b.protocol} ${b.day}`));
  await tx.query(
    `INSERT INTO request_shapes_dropped (protocol, day, instance, count)
     SELECT protocol, day, $4::text, count FROM unnest($1::text[], $2::date[], $3::bigint[]) AS d (protocol, day, count)
     ON CONFLICT (protocol, day, instance) DO UPDATE SET count = request_shapes_dropped.count + EXCLUDED.count`,
    [sorted.map((drop) => drop.protocol), sorted.map((drop) => drop.day), sorted.map((drop) => drop.count), instance],
  );
}

async function readCoverage(db: Database, sinceDay: string): Promise<ShapeCoverage[]> {
  const [instances, drops] = await Promise.all([
    db.query<{ day: string; served: number; flushed: number }>(
      `SELECT day::text AS day, count(*)::int AS served, count(*) FILTER (WHERE flushes > 0)::int AS flushed
         FROM request_shape_recorders WHERE day >= $1::date GROUP BY day`,
      [sinceDay],
    ),
    db.query<{ day: string; protocol: ShapeProtocol; dropped: string }>(
      `SELECT day::text AS day, protocol, sum(count)::bigint AS dropped FROM request_shapes_dropped
        WHERE day >= $1::date GROUP BY day, protocol`,
      [sinceDay],
    ),
  ]);
  const byDay = new Map<string, ShapeCoverage>();
  const dayOf = (day: string) => {
    const entry = byDay.get(day) ?? { day, served: 0, flushed: 0, dropped: {} };
    byDay.set(day, entry);
    return entry;
  };
  for (const row of instances) Object.assign(dayOf(row.day), { served: row.served, flushed: row.flushed });
  for (const row of drops) dayOf(row.day).dropped[row.protocol] = Number(row.dropped);
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}

function toShapeUse(row: Record<string, unknown>): ShapeUse {
  return {
    protocol: row.protocol as ShapeProtocol,
    shape: row.shape as string,
    day: row.day as string,
    apiKeyId: Number(row.api_key_id),
    client: row.client as string,
    count: Number(row.count),
    firstSeen: new Date(row.first_seen as string),
    lastSeen: new Date(row.last_seen as string),
    label: (row.key_label as string | null) ?? null,
    ownerName: (row.owner_name as string | null) ?? null,
    ownerEmail: (row.owner_email as string | null) ?? null,
  };
}

function keyOf(row: ShapeCount): string {
  return `${row.protocol}\u0000${row.shape}\u0000${row.day}\u0000${String(row.apiKeyId).padStart(20, '0')}\u0000${row.client}`;
}
