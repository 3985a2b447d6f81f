import type { NewApiKey, Store } from '../core/ports/index.js';
import type { ApiKey } from '../core/shared/model.js';
import type { Database, Queryable } from './database.js';
import { pageSql, type SortColumns } from './keyset.js';
import { toApiKey } from './rows.js';

/** The sortable columns of the key list. */
const keyColumns: SortColumns = {
  createdAt: { column: 'created_at', cast: 'timestamptz' },
  id: { column: 'id', cast: 'bigint' },
};

const INSERT = `INSERT INTO api_keys (user_id, role, key_hash, scopes, label, expires_at, rate_limit)
  VALUES ($1, $2, $3, $4::text[], $5, $6, $7)`;

const insertParams = (key: NewApiKey) => [
  key.userId,
  key.role,
  key.keyHash,
  [...key.scopes],
  key.label ?? null,
  key.expiresAt ?? null,
  key.rateLimit ?? null,
];

async function insertKey(db: Queryable, key: NewApiKey): Promise<ApiKey> {
  const rows = await db.query(`${INSERT} RETURNING *`, insertParams(key));
  return toApiKey(rows[0] as Record<string, unknown>);
}

/** API keys in PostgreSQL (hashes only). */
export function apiKeyStore(db: Database): Store['apiKeys'] {
  return {
    insert: (key) => insertKey(db, key),
    async setRateLimit(id, rateLimit) {
      const rows = await db.query('UPDATE api_keys SET rate_limit = $2 WHERE id = $1 RETURNING *', [id, rateLimit]);
      return rows[0] && toApiKey(rows[0]);
    },
    async ensure(key) {
      const rows = await db.query(`${INSERT} ON CONFLICT (key_hash) DO NOTHING RETURNING id`, insertParams(key));
      return rows.length > 0;
    },
    async findActive(keyHash) {
      const rows = await db.query('SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash]);
      return rows[0] && toApiKey(rows[0]);
    },
    async get(id) {
      const rows = await db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
      return rows[0] && toApiKey(rows[0]);
    },
    async list({ userId, sort, after, limit }) {
      const query = pageSql({
        from: 'api_keys',
        columns: keyColumns,
        sort,
        limit,
        ...(userId === undefined ? {} : { where: { sql: 'user_id = $1', params: [userId] } }),
        ...(after ? { after } : {}),
      });
      return (await db.query(query.sql, query.params)).map(toApiKey);
    },
    async count({ userId } = {}) {
      const rows =
        userId === undefined
          ? await db.query<{ count: number }>('SELECT count(*) AS count FROM api_keys')
          : await db.query<{ count: number }>('SELECT count(*) AS count FROM api_keys WHERE user_id = $1', [userId]);
      return Number(rows[0]?.count ?? 0);
    },
    revoke: (id) => revokeChain(db, id),
    rotate: (id, successor, oldEndsAt, now) => rotateKey(db, id, successor, oldEndsAt, now),
    async touch(id, userId) {
      // One statement for both: the key's last use and its user's last login, each at most once a minute.
      await db.query(
        `WITH used AS (
           UPDATE api_keys SET last_used_at = date_trunc('milliseconds', now())
            WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
         )
         UPDATE users SET last_login_at = date_trunc('milliseconds', now())
          WHERE id = $2 AND (last_login_at IS NULL OR last_login_at < now() - interval '1 minute')`,
        [id, userId],
      );
    },
  };
}

/** Revokes the key and its live predecessors (see the port). */
async function revokeChain(db: Database, id: number): ReturnType<Store['apiKeys']['revoke']> {
  // The key and every predecessor still live (the keys it replaced by rotation, back along the chain),
  // so that revoking a leaked key's newest rotation does not leave its older ones working.
  const rows = await db.query(
    `WITH RECURSIVE chain(id) AS (
       SELECT $1::bigint
       UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id
     )
     UPDATE api_keys SET revoked_at = COALESCE(revoked_at, date_trunc('milliseconds', now()))
      WHERE id IN (SELECT id FROM chain)
        AND (id = $1 OR (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())))
      RETURNING *`,
    [id],
  );
  const key = rows.find((row) => Number(row.id) === id);
  if (!key) return undefined;
  const predecessors = rows.filter((row) => row !== key).map((row) => Number(row.id));
  return { key: toApiKey(key), predecessors };
}

/** Rotation, atomically (see the port). */
function rotateKey(
  db: Database,
  id: number,
  successor: NewApiKey,
  oldEndsAt: Date,
  now: Date,
): ReturnType<Store['apiKeys']['rotate']> {
  return db.transaction(async (tx) => {
    // Locks the old key first, so that two rotations of one key cannot both succeed.
    const current = await tx.query(
      'SELECT id FROM api_keys WHERE id = $1 AND revoked_at IS NULL AND replaced_by IS NULL FOR UPDATE',
      [id],
    );
    if (current.length === 0) return undefined;
    const created = await insertKey(tx, successor);
    // The successor joins the old key's chain (named by its first key), in the same statement.
    const rows = await tx.query(
      `WITH old AS (
         UPDATE api_keys SET replaced_by = $2, expires_at = LEAST(COALESCE(expires_at, $3), $3)
          WHERE id = $1 RETURNING *),
       joined AS (UPDATE api_keys SET chain_id = (SELECT COALESCE(chain_id, id) FROM old) WHERE id = $2)
       SELECT * FROM old`,
      [id, created.id, oldEndsAt],
    );
    // At most one live predecessor per key: a key rotated again within its overlap ends the one before it now.
    const ended = await tx.query(
      `UPDATE api_keys SET expires_at = $2
        WHERE replaced_by = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
        RETURNING id`,
      [id, now],
    );
    // The old key's webhook endpoints are the successor's now: their deliveries count as its uses.
    await tx.query('UPDATE webhook_endpoints SET api_key_id = $2 WHERE api_key_id = $1', [id, created.id]);
    return {
      old: toApiKey(rows[0] as Record<string, unknown>),
      successor: { ...created, chainId: Number(rows[0]?.chain_id ?? id) },
      endedPredecessors: ended.map((row) => Number(row.id)),
    };
  });
}
