import { randomBytes } from 'node:crypto';
import type { EventPosition, EventStore } from '../core/ports/events.js';
import type { EventFilter, EventType, StoredEvent } from '../core/shared/events.js';
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

/** The filter as SQL conditions on the events aliased `table`, from parameter `$first` on. */
function filterSql(filter: EventFilter, first: number, table = 'events'): { where: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (parameter: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${first + params.length - 1}`));
  };
  if (filter.types) add((parameter) => `${table}.type = ANY(${parameter}::text[])`, filter.types);
  if (filter.subject !== undefined) add((parameter) => `${table}.subject = ${parameter}`, filter.subject);
  if (filter.ownerUserId !== undefined) add((parameter) => `${table}.owner_user_id = ${parameter}`, filter.ownerUserId);
  return { where: where.map((condition) => ` AND ${condition}`).join(''), params };
}

type FoundRow = EventRow & { before_tx: number | null; before_seq: number | null };

const comesAfter = (a: { tx_id: number; seq: number }, b: { tx_id: number; seq: number }) =>
  a.tx_id > b.tx_id || (a.tx_id === b.tx_id && a.seq > b.seq);

/**
 * How many of `rows` (read in position order) can be delivered now without one subject's events going out
 * of `seq` order: a row waits while the event of its subject just before it in `seq` lies past the last row
 * delivered. Rows before a waiting one can still go; each cut may make an earlier row wait, so cut again.
 */
function deliverable(rows: FoundRow[]): number {
  let count = rows.length;
  for (let cut = -1; cut !== count; ) {
    cut = count;
    const last = rows[count - 1];
    if (!last) return 0;
    const waits = rows.findIndex(
      (row, index) =>
        index < count &&
        row.before_tx !== null &&
        row.before_seq !== null &&
        comesAfter({ tx_id: row.before_tx, seq: row.before_seq }, last),
    );
    if (waits !== -1) count = waits;
  }
  return count;
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
      const { where, params } = filterSql(filter, 4, 'e');
      const before = filterSql(filter, 4, 'b').where;
      for (let read = limit; ; read *= 2) {
        // One row more than asked, past the horizon too: a committed row there is held back, not lost. Each
        // row comes with the event of its subject just before it in `seq` (see `deliverable`).
        const found = await db.query<FoundRow>(
          `SELECT e.*, b.tx_id::text::bigint AS before_tx, b.seq AS before_seq
             FROM (SELECT ${COLUMNS} FROM events e WHERE (tx_id, seq) > ($1::text::xid8, $2)${where}
                    ORDER BY tx_id, seq LIMIT $3) e
             LEFT JOIN LATERAL (SELECT b.tx_id, b.seq FROM events b WHERE b.subject = e.subject AND b.seq < e.seq${before}
                                 ORDER BY b.seq DESC LIMIT 1) b ON true
            ORDER BY e.tx_id, e.seq`,
          [String(position.txId), position.seq, read + 1, ...params],
        );
        const below = found.filter((row) => row.tx_id < xmin).slice(0, read);
        const count = deliverable(below);
        // The first row waits for an event below the horizon that this read did not reach: read further.
        if (count === 0 && below.length === read) continue;
        const rows = below.slice(0, count);
        const last = rows.at(-1);
        let next: EventPosition = last ? { txId: last.tx_id, seq: last.seq } : position;
        const complete = count === below.length && rows.length < read;
        // Every matching event of the finished transactions was read, so skip to the horizon.
        if (complete && xmin - 1 > next.txId) next = { txId: xmin - 1, seq: LAST_SEQ };
        return { events: rows.map(toEvent), next, heldBack: count < below.length || below.length < found.length };
      }
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
