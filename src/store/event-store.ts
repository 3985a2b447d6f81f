import { randomBytes } from 'node:crypto';
import type { EventType, NewEvent, StoredEvent } from '../core/events.js';
import type { EventFilter, EventStore } from '../core/ports/events.js';
import type { Database, Queryable } from './database.js';

/** The channel that tells every instance a new event was committed. */
export const EVENT_CHANNEL = 'order_api_events';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A new event id: `evt_` and 26 characters, time first so that ids sort by creation. */
function eventId(): string {
  let time = Date.now();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const tail = [...randomBytes(16)].map((byte) => ALPHABET[byte % 32]).join('');
  return `evt_${head}${tail}`;
}

const toEvent = (row: Record<string, unknown>): StoredEvent => ({
  id: row.id as string,
  seq: row.seq as number,
  type: row.type as EventType,
  createdAt: row.created_at as Date,
  ownerUserId: (row.owner_user_id as number | null) ?? null,
  subject: row.subject as string,
  data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as StoredEvent['data'],
});

/** Writes events inside the caller's transaction and notifies listeners (delivered on commit only). */
export async function appendEvents(tx: Queryable, events: readonly NewEvent[]): Promise<StoredEvent[]> {
  const stored: StoredEvent[] = [];
  for (const event of events) {
    const rows = await tx.query(
      `INSERT INTO events (id, type, owner_user_id, subject, data) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [eventId(), event.type, event.ownerUserId, event.subject, JSON.stringify(event.data)],
    );
    stored.push(toEvent(rows[0] as Record<string, unknown>));
  }
  const last = stored.at(-1);
  if (last) await tx.query('SELECT pg_notify($1, $2)', [EVENT_CHANNEL, String(last.seq)]);
  return stored;
}

function conditions(filter: EventFilter, params: unknown[]): string[] {
  const where: string[] = [];
  if (filter.ownerUserId !== undefined) {
    params.push(filter.ownerUserId);
    where.push(`owner_user_id = $${params.length}`);
  }
  if (filter.types) {
    params.push(filter.types);
    where.push(`type = ANY($${params.length}::text[])`);
  }
  if (filter.createdAfter) {
    params.push(filter.createdAfter);
    where.push(`created_at > $${params.length}`);
  }
  return where;
}

/** Committed events in PostgreSQL. */
export function eventStore(db: Database): EventStore {
  return {
    async after(seq, filter, limit) {
      const params: unknown[] = [seq, limit];
      const where = ['seq > $1', ...conditions(filter, params)];
      const rows = await db.query(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $2`, params);
      return rows.map(toEvent);
    },
    async list(filter, page) {
      const params: unknown[] = [page.since, page.limit];
      const where = ['created_at > $1', ...conditions(filter, params)];
      if (page.beforeSeq !== undefined) {
        params.push(page.beforeSeq);
        where.push(`seq < $${params.length}`);
      }
      const rows = await db.query(
        `SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $2`,
        params,
      );
      return rows.map(toEvent);
    },
    async get(id) {
      const rows = await db.query('SELECT * FROM events WHERE id = $1', [id]);
      return rows[0] && toEvent(rows[0]);
    },
  };
}
