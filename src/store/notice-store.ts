/** Deprecation notices in PostgreSQL: each recorded with the `deprecation.announced` event it was sent as. */
import type { Notified } from '../core/ports/brownouts.js';
import type { NewNotice, Notice, RecordedNotice } from '../core/ports/usage.js';
import type { Database } from './database.js';
import { type Outbox, writeEvents } from './outbox.js';

/**
 * Records notices of one item and, in the same transaction, one `deprecation.announced` event per distinct
 * owner of the keys (queued for that owner's and the admins' endpoints); each notice row names its event.
 */
export async function addNotices(
  db: Database,
  events: Outbox,
  notices: NewNotice[],
  recordedBy: number,
  announcement: Record<string, unknown>,
): Promise<{ unknownKeys: number[]; recorded: Notice[]; notified: Notified[] }> {
  const ids = [...new Set(notices.map((notice) => notice.apiKeyId))];
  const known = await db.query<{ id: number; user_id: number | null; email: string | null }>(
    'SELECT k.id, k.user_id, users.email FROM api_keys k LEFT JOIN users ON users.id = k.user_id WHERE k.id = ANY($1::bigint[])',
    [ids],
  );
  const unknownKeys = ids.filter((id) => !known.some((row) => Number(row.id) === id));
  if (unknownKeys.length > 0 || notices.length === 0) return { unknownKeys, recorded: [], notified: [] };
  const owners = new Map<number, string | null>();
  for (const row of known) if (row.user_id !== null) owners.set(Number(row.user_id), row.email);
  const userIds = [...owners.keys()].sort((a, b) => a - b);
  const item = (notices[0] as NewNotice).item;
  return db.transaction(async (tx) => {
    const written = await writeEvents(tx, events.channel, events.deprecationAnnounced(item, announcement, userIds));
    const eventOf = new Map(userIds.map((userId, index) => [userId, written[index]?.id as string]));
    const recorded: Notice[] = [];
    for (const notice of notices) {
      const userId = known.find((row) => Number(row.id) === notice.apiKeyId)?.user_id;
      const eventId = userId === null || userId === undefined ? null : (eventOf.get(Number(userId)) ?? null);
      await tx.query(
        `INSERT INTO deprecation_notices (item, api_key_id, channel, note, notified_at, recorded_by, event_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          notice.item,
          notice.apiKeyId,
          notice.channel,
          notice.note,
          notice.notifiedAt.toISOString(),
          recordedBy,
          eventId,
        ],
      );
      recorded.push({ ...notice, eventId });
    }
    const notified = userIds.map((userId) => ({
      userId,
      email: owners.get(userId) ?? null,
      eventId: eventOf.get(userId) as string,
    }));
    return { unknownKeys: [], recorded, notified };
  });
}

/** The notices of one item, oldest first, each with its record's id and event. */
export async function readNotices(db: Database, item: string): Promise<RecordedNotice[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT id, item, api_key_id, channel, note, notified_at, event_id FROM deprecation_notices
      WHERE item = $1 ORDER BY notified_at, id`,
    [item],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    item: row.item as string,
    apiKeyId: Number(row.api_key_id),
    channel: row.channel as string,
    note: (row.note as string | null) ?? null,
    notifiedAt: new Date(row.notified_at as string),
    eventId: (row.event_id as string | null) ?? null,
  }));
}
