import { noticeSinceDay } from '../core/lifecycle/notices/deprecation-notice.js';
import type { BrownoutStore, BrownoutWindow } from '../core/ports/brownouts.js';
import type { Database } from './database.js';
import { ownersOf, writeNoticeEvents } from './notice-outbox.js';
import { type Outbox, recentCallerKeys } from './outbox.js';

const COLUMNS = 'id, item, starts_at, ends_at, note, scheduled_at, scheduled_by, cancelled_at, cancel_note';

function windowOf(row: Record<string, unknown>): BrownoutWindow {
  return {
    id: Number(row.id),
    item: row.item as string,
    startsAt: new Date(row.starts_at as string),
    endsAt: new Date(row.ends_at as string),
    note: (row.note as string | null) ?? null,
    scheduledAt: new Date(row.scheduled_at as string),
    scheduledBy: row.scheduled_by === null ? null : Number(row.scheduled_by),
    cancelledAt: row.cancelled_at === null ? null : new Date(row.cancelled_at as string),
    cancelNote: (row.cancel_note as string | null) ?? null,
  };
}

/** Brownout windows in PostgreSQL. */
export function brownoutStore(db: Database, events: Outbox): BrownoutStore {
  return {
    async schedule(window, mail) {
      return db.transaction(async (tx) => {
        // One lock per item for the length of the transaction: the overlap check and the insert are atomic
        // across instances.
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`brownout:${window.item}`]);
        const overlapping = await tx.query<Record<string, unknown>>(
          `SELECT ${COLUMNS} FROM brownouts
            WHERE item = $1 AND cancelled_at IS NULL AND starts_at < $3 AND ends_at > $2
            ORDER BY starts_at LIMIT 1`,
          [window.item, window.startsAt.toISOString(), window.endsAt.toISOString()],
        );
        if (overlapping[0]) return { overlaps: windowOf(overlapping[0]) };
        const rows = await tx.query<Record<string, unknown>>(
          `INSERT INTO brownouts (item, starts_at, ends_at, note, scheduled_at, scheduled_by)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
          [
            window.item,
            window.startsAt.toISOString(),
            window.endsAt.toISOString(),
            window.note,
            window.scheduledAt.toISOString(),
            window.scheduledBy,
          ],
        );
        const stored = windowOf(rows[0] as Record<string, unknown>);
        const owners = ownersOf(await recentCallerKeys(tx, window.item, noticeSinceDay(window.scheduledAt)));
        const userIds = owners.map((owner) => owner.userId);
        await writeNoticeEvents(tx, events.wakeups, events.brownoutScheduled(stored, userIds), owners, mail);
        return { window: stored };
      });
    },

    async get(id) {
      const rows = await db.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM brownouts WHERE id = $1`, [id]);
      return rows[0] ? windowOf(rows[0]) : undefined;
    },

    async list({ item, endedAfter }) {
      const rows = await db.query<Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM brownouts
          WHERE ends_at > $1 AND ($2::text IS NULL OR item = $2)
          ORDER BY starts_at, id`,
        [endedAfter.toISOString(), item ?? null],
      );
      return rows.map(windowOf);
    },

    async cancel(id, at, by, note) {
      const rows = await db.query<Record<string, unknown>>(
        `UPDATE brownouts SET cancelled_at = COALESCE(cancelled_at, $2),
                              cancelled_by = CASE WHEN cancelled_at IS NULL THEN $3 ELSE cancelled_by END,
                              cancel_note = CASE WHEN cancelled_at IS NULL THEN $4 ELSE cancel_note END
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, at.toISOString(), by, note ?? null],
      );
      return rows[0] ? windowOf(rows[0]) : undefined;
    },
  };
}
