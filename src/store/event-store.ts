import { randomBytes } from 'node:crypto';
import type { EventFilter, EventType, StoredEvent } from '../core/events.js';
import type { EventPosition, EventStore } from '../core/ports/events.js';
import type { Database } from './database.js';

export interface EventRow {
  seq: number;
  tx_id: number;
  id: string;
  type: EventType;
  created_at: Date;
  owner_user_id: number | null;
  subject: string;
  data: StoredEvent['data'];
}

const COLUMNS = 'seq, tx_id::text::bigint AS tx_id, id, type, created_at, owner_user_id, subject, data';
const LAST_SEQ = Number.MAX_SAFE_INTEGER;

export const toEvent = (row: EventRow): StoredEvent => ({
  seq: row.seq,
  id: row.id,
  type: row.type,
  createdAt: row.created_at,
  ownerUserId: row.owner_user_id,
  subject: row.subject,
  data: row.data,
});

// 130 random bits in 26 characters of an unambiguous alphabet (Crockford's base32), as public event ids.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const newEventId = (): string => `evt_${Array.from(randomBytes(26), (byte) => ALPHABET[byte & 31]).join('')}`;

/** The filter as SQL conditions from parameter `$first` on. */
function filterSql(filter: EventFilter, first: number): { where: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.types) {
    params.push(filter.types);
    where.push(`type = ANY($${first + params.length - 1}::text[])`);
  }
  if (filter.subject !== undefined) {
    params.push(filter.subject);
    where.push(`subject = $${first + params.length - 1}`);
  }
  if (filter.ownerUserId !== undefined) {
    params.push(filter.ownerUserId);
    where.push(`owner_user_id = $${first + params.length - 1}`);
  }
  return { where: where.map((condition) => ` AND ${condition}`).join(''), params };
}

/** The outbox's reads in PostgreSQL. */
export function eventStore(db: Database): EventStore {
  const horizon = async (): Promise<number> => {
    const rows = await db.query<{ xmin: number }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin',
    );
    return Number(rows[0]?.xmin);
  };
  return {
    async after(position, filter, limit) {
      const xmin = await horizon();
      const { where, params } = filterSql(filter, 4);
      // One row more than asked, past the horizon too: a committed row there is held back, not lost.
      const found = await db.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE (tx_id, seq) > ($1::text::xid8, $2)${where}
          ORDER BY tx_id, seq LIMIT $3`,
        [String(position.txId), position.seq, limit + 1, ...params],
      );
      const below = found.filter((row) => row.tx_id < xmin);
      const rows = below.slice(0, limit);
      const last = rows.at(-1);
      let next: EventPosition = last ? { txId: last.tx_id, seq: last.seq } : position;
      // Fewer than asked: every matching event of the finished transactions was read, so skip to the horizon.
      if (rows.length < limit && xmin - 1 > next.txId) next = { txId: xmin - 1, seq: LAST_SEQ };
      return { events: rows.map(toEvent), next, heldBack: below.length < found.length };
    },
    async head() {
      return { txId: (await horizon()) - 1, seq: LAST_SEQ };
    },
    async list(filter, page) {
      const { where, params } = filterSql(filter, 4);
      const rows = await db.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE created_at > $1 AND seq < $2${where} ORDER BY seq DESC LIMIT $3`,
        [page.since, page.beforeSeq ?? LAST_SEQ, page.limit, ...params],
      );
      return rows.map(toEvent);
    },
    async count(filter, since) {
      const { where, params } = filterSql(filter, 2);
      const rows = await db.query<{ count: number }>(
        `SELECT count(*) AS count FROM events WHERE created_at > $1${where}`,
        [since, ...params],
      );
      return rows[0]?.count ?? 0;
    },
    async get(id) {
      const rows = await db.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE id = $1`, [id]);
      return rows[0] ? toEvent(rows[0]) : undefined;
    },
  };
}
