import type {
  CallerUsage,
  DayCoverage,
  UsageCount,
  UsageDrop,
  UsageFlush,
  UsagePort,
  UsageTotal,
} from '../core/ports/usage.js';
import type { Database, Queryable } from './database.js';
import { addNotices, readNotices } from './notice-store.js';
import { type Outbox, sqlOutbox } from './outbox.js';

/** Usage rows with the key owner's name and email, as the callers report and a key's own usage read them. */
const CALLER_ROWS = `SELECT u.item, u.day::text AS day, u.api_key_id, u.client, u.kind, u.count, u.first_seen,
       u.last_seen, users.name AS owner_name, users.email AS owner_email, k.label AS key_label
  FROM deprecation_usage u
  LEFT JOIN api_keys k ON k.id = u.api_key_id
  LEFT JOIN users ON users.id = k.user_id`;

/** Deprecation usage in PostgreSQL: additive upserts, so any number of instances can write at once. */
export function usageStore(db: Database, events: Outbox = sqlOutbox(db)): UsagePort {
  return {
    async add(counts, flush) {
      // Rows are written in key order, so two instances flushing overlapping batches lock in the same order.
      const rows = [...counts].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      const drops = [...(flush.dropped ?? [])].sort((a, b) => dropKey(a).localeCompare(dropKey(b)));
      await db.transaction(async (tx) => {
        if (rows.length > 0) await addCounts(tx, rows);
        if (drops.length > 0) await addDrops(tx, drops, flush);
        await countFlush(tx, flush);
      });
    },

    register: (heartbeat) => registerInstance(db, heartbeat),

    async totals(sinceDay) {
      const rows = await db.query<UsageTotal>(
        `SELECT item, kind, day::text AS day, sum(count)::bigint AS count FROM deprecation_usage
          WHERE day >= $1::date GROUP BY item, kind, day`,
        [sinceDay],
      );
      return rows.map((row) => ({ ...row, count: Number(row.count) }));
    },

    coverage: (item, sinceDay) => readCoverage(db, item, sinceDay),

    async callers(item, sinceDay) {
      const rows = await db.query<Record<string, unknown>>(
        `${CALLER_ROWS} WHERE u.item = $1 AND u.day >= $2::date ORDER BY u.api_key_id, u.client, u.day`,
        [item, sinceDay],
      );
      return rows.map(toCallerUsage);
    },

    async keyUsage(apiKeyId, sinceDay) {
      const rows = await db.query<Record<string, unknown>>(
        `${CALLER_ROWS} WHERE u.api_key_id = $1 AND u.day >= $2::date ORDER BY u.item, u.client, u.day`,
        [apiKeyId, sinceDay],
      );
      return rows.map(toCallerUsage);
    },

    addNotices: (request) => addNotices(db, events, request),
    notices: (item) => readNotices(db, item),
  };
}

/** Adds counts to the daily rows (additive upserts). */
async function addCounts(tx: Queryable, rows: UsageCount[]): Promise<void> {
  await tx.query(
    `INSERT INTO deprecation_usage (item, day, api_key_id, client, kind, count, first_seen, last_seen)
     SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[], $4::text[], $5::text[], $6::bigint[],
                          $7::timestamptz[], $8::timestamptz[])
     ON CONFLICT (item, day, api_key_id, client, kind) DO UPDATE SET
       count = deprecation_usage.count + EXCLUDED.count,
       first_seen = LEAST(deprecation_usage.first_seen, EXCLUDED.first_seen),
       last_seen = GREATEST(deprecation_usage.last_seen, EXCLUDED.last_seen)`,
    [
      rows.map((row) => row.item),
      rows.map((row) => row.day),
      rows.map((row) => row.apiKeyId),
      rows.map((row) => row.client),
      rows.map((row) => row.kind),
      rows.map((row) => row.count),
      rows.map((row) => row.firstSeen.toISOString()),
      rows.map((row) => row.lastSeen.toISOString()),
    ],
  );
}

/** Notes an instance as serving on the day of `at`, not flushed yet (a registration). */
async function registerInstance(db: Database, { instance, at }: { instance: string; at: Date }): Promise<void> {
  await db.query(
    `INSERT INTO deprecation_recorders (instance, day, flushes, first_seen, last_seen)
     VALUES ($1, $2::date, 0, $3, $3)
     ON CONFLICT (instance, day) DO UPDATE SET
       first_seen = LEAST(deprecation_recorders.first_seen, EXCLUDED.first_seen),
       last_seen = GREATEST(deprecation_recorders.last_seen, EXCLUDED.last_seen)`,
    [instance, at.toISOString().slice(0, 10), at.toISOString()],
  );
}

/** Per day: the instances that served and that flushed, and the uses of `item` dropped. */
async function readCoverage(db: Database, item: string, sinceDay: string): Promise<DayCoverage[]> {
  const [instances, drops] = await Promise.all([
    db.query<{ day: string; served: number; flushed: number }>(
      `SELECT day::text AS day, count(*)::int AS served, count(*) FILTER (WHERE flushes > 0)::int AS flushed
         FROM deprecation_recorders WHERE day >= $1::date GROUP BY day`,
      [sinceDay],
    ),
    db.query<{ day: string; dropped: number }>(
      `SELECT day::text AS day, sum(count)::bigint AS dropped FROM deprecation_usage_dropped
        WHERE item = $1 AND day >= $2::date GROUP BY day`,
      [item, sinceDay],
    ),
  ]);
  const byDay = new Map<string, DayCoverage>();
  for (const row of instances)
    byDay.set(row.day, { day: row.day, served: Number(row.served), flushed: Number(row.flushed), dropped: 0 });
  for (const row of drops) {
    const day = byDay.get(row.day) ?? { day: row.day, served: 0, flushed: 0, dropped: 0 };
    day.dropped = Number(row.dropped);
    byDay.set(row.day, day);
  }
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** Adds the uses a recorder dropped, per item, day and instance (additive, as the counts). */
async function addDrops(tx: Queryable, drops: UsageDrop[], flush: UsageFlush): Promise<void> {
  await tx.query(
    `INSERT INTO deprecation_usage_dropped (item, day, instance, count, last_flush_at)
     SELECT item, day, $4::text, count, $5::timestamptz
       FROM unnest($1::text[], $2::date[], $3::bigint[]) AS d (item, day, count)
     ON CONFLICT (item, day, instance) DO UPDATE SET
       count = deprecation_usage_dropped.count + EXCLUDED.count,
       last_flush_at = GREATEST(deprecation_usage_dropped.last_flush_at, EXCLUDED.last_flush_at)`,
    [
      drops.map((drop) => drop.item),
      drops.map((drop) => drop.day),
      drops.map((drop) => drop.count),
      flush.instance,
      flush.at.toISOString(),
    ],
  );
}

/**
 * Notes the flush of an instance on each day it completes (the day of `at` by default): the evidence that the
 * instance's usage of those days is written.
 */
async function countFlush(tx: Queryable, { instance, at, days }: UsageFlush): Promise<void> {
  const flushed = [...new Set(days ?? [at.toISOString().slice(0, 10)])].sort();
  await tx.query(
    `INSERT INTO deprecation_recorders (instance, day, flushes, last_flush_at, first_seen, last_seen)
     SELECT $1::text, day, 1, $3::timestamptz, $3::timestamptz, $3::timestamptz
       FROM unnest($2::date[]) AS d (day)
     ON CONFLICT (instance, day) DO UPDATE SET flushes = deprecation_recorders.flushes + 1,
       last_flush_at = GREATEST(deprecation_recorders.last_flush_at, EXCLUDED.last_flush_at),
       first_seen = LEAST(deprecation_recorders.first_seen, EXCLUDED.first_seen),
       last_seen = GREATEST(deprecation_recorders.last_seen, EXCLUDED.last_seen)`,
    [instance, flushed, at.toISOString()],
  );
}

function toCallerUsage(row: Record<string, unknown>): CallerUsage {
  return {
    item: row.item as string,
    day: row.day as string,
    apiKeyId: Number(row.api_key_id),
    client: row.client as string,
    kind: row.kind as CallerUsage['kind'],
    count: Number(row.count),
    firstSeen: new Date(row.first_seen as string),
    lastSeen: new Date(row.last_seen as string),
    ownerName: (row.owner_name as string | null) ?? null,
    ownerEmail: (row.owner_email as string | null) ?? null,
    label: (row.key_label as string | null) ?? null,
  };
}

function dropKey(drop: UsageDrop): string {
  return `${drop.item}\u0000${drop.day}`;
}

function keyOf(row: UsageCount): string {
  return `${row.item}\u0000${row.day}\u0000${String(row.apiKeyId).padStart(20, '0')}\u0000${row.client}\u0000${row.kind}`;
}
