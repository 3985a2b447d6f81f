/** Deprecation notices in PostgreSQL: each recorded with the `deprecation.announced` event it was sent as. */
import type { NoticeRequest, RecordedNotice } from '../core/ports/usage.js';
import type { Database, Queryable } from './database.js';
import { readDeliveries } from './notice-deliveries.js';
import { ownersOf, writeNoticeEvents } from './notice-outbox.js';
import { type CallerKey, type Outbox, recentCallerKeys } from './outbox.js';

type NoticeOutbox = Pick<Outbox, 'wakeups' | 'deprecationAnnounced'>;

/** The named keys with their owners, in the order named, and the ids that name no key. */
async function namedKeys(tx: Queryable, ids: number[]): Promise<{ keys: CallerKey[]; unknownKeys: number[] }> {
  const rows = await tx.query<{ id: number; user_id: number; email: string | null }>(
    'SELECT k.id, k.user_id, users.email FROM api_keys k JOIN users ON users.id = k.user_id WHERE k.id = ANY($1::bigint[])',
    [ids],
  );
  const known = new Map(rows.map((row) => [Number(row.id), { userId: Number(row.user_id), email: row.email }]));
  return {
    keys: ids.flatMap((apiKeyId) => {
      const owner = known.get(apiKeyId);
      return owner ? [{ apiKeyId, ...owner }] : [];
    }),
    unknownKeys: ids.filter((id) => !known.has(id)),
  };
}

/**
 * Records one notice per key (named, or every key that used the item recently) and, in the same transaction,
 * one `deprecation.announced` event per distinct owner (queued for that owner's and the admins' endpoints),
 * and with `mail` one e-mail per owner with an address; each notice row names its owner's event.
 */
export async function addNotices(
  db: Database,
  events: NoticeOutbox,
  request: NoticeRequest,
): Promise<{ unknownKeys: number[]; recorded: RecordedNotice[] }> {
  return db.transaction(async (tx) => {
    const { keys, unknownKeys } = Array.isArray(request.keys)
      ? await namedKeys(tx, request.keys)
      : { keys: await recentCallerKeys(tx, request.item, request.keys.usedSinceDay), unknownKeys: [] };
    if (unknownKeys.length > 0 || keys.length === 0) return { unknownKeys, recorded: [] };
    const owners = ownersOf(keys);
    const userIds = owners.map((owner) => owner.userId);
    const eventOf = await writeNoticeEvents(
      tx,
      events.wakeups,
      events.deprecationAnnounced(request.item, request.announcement, userIds),
      owners,
      request.mail,
    );
    const rows = await tx.query<{ id: number; api_key_id: number }>(
      `INSERT INTO deprecation_notices (item, api_key_id, channel, note, notified_at, recorded_by, event_id)
       SELECT $1, key_id, $2, $3, $4, $5, event_id FROM unnest($6::bigint[], $7::text[]) AS k(key_id, event_id)
       RETURNING id, api_key_id`,
      [
        request.item,
        request.channel,
        request.note,
        request.notifiedAt.toISOString(),
        request.recordedBy,
        keys.map((key) => key.apiKeyId),
        keys.map((key) => eventOf.get(key.userId) as string),
      ],
    );
    const idOf = new Map(rows.map((row) => [Number(row.api_key_id), Number(row.id)]));
    const deliveries = await readDeliveries(tx, [...eventOf.values()]);
    const recorded = keys.map((key) => {
      const eventId = eventOf.get(key.userId) as string;
      return {
        id: idOf.get(key.apiKeyId) as number,
        item: request.item,
        apiKeyId: key.apiKeyId,
        channel: request.channel,
        note: request.note,
        notifiedAt: request.notifiedAt,
        eventId,
        deliveries: deliveries.get(eventId) ?? [],
      };
    });
    return { unknownKeys: [], recorded };
  });
}

/** The notices of one item, oldest first, each with its record's id, its event and its event's deliveries. */
export async function readNotices(db: Database, item: string): Promise<RecordedNotice[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT id, item, api_key_id, channel, note, notified_at, event_id FROM deprecation_notices
      WHERE item = $1 ORDER BY notified_at, id`,
    [item],
  );
  const eventIds = [...new Set(rows.flatMap((row) => (row.event_id ? [row.event_id as string] : [])))];
  const deliveries = await readDeliveries(db, eventIds);
  return rows.map((row) => ({
    id: Number(row.id),
    item: row.item as string,
    apiKeyId: Number(row.api_key_id),
    channel: row.channel as string,
    note: (row.note as string | null) ?? null,
    notifiedAt: new Date(row.notified_at as string),
    eventId: (row.event_id as string | null) ?? null,
    deliveries: row.event_id ? (deliveries.get(row.event_id as string) ?? []) : [],
  }));
}
