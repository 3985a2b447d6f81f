import type { Store } from '../core/ports/index.js';
import type { Database } from './database.js';
import { pageSql, type SortColumns } from './keyset.js';
import { isUniqueViolation, toUser } from './rows.js';

/** The sortable columns of the user list. */
const userColumns: SortColumns = {
  createdAt: { column: 'created_at', cast: 'timestamptz' },
  name: { column: 'name', cast: 'text' },
  id: { column: 'id', cast: 'bigint' },
};

/** Users in PostgreSQL. */
export function userStore(db: Database): Store['users'] {
  return {
    async get(id) {
      const rows = await db.query('SELECT * FROM users WHERE id = $1', [id]);
      return rows[0] && toUser(rows[0]);
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      return (await db.query('SELECT * FROM users WHERE id = ANY($1::bigint[])', [ids])).map(toUser);
    },
    async list({ sort, after, limit }) {
      const query = pageSql({ from: 'users', columns: userColumns, sort, limit, ...(after ? { after } : {}) });
      return (await db.query(query.sql, query.params)).map(toUser);
    },
    async count() {
      const rows = await db.query<{ count: number }>('SELECT count(*) AS count FROM users');
      return rows[0]?.count ?? 0;
    },
    async insert(user) {
      try {
        const rows = await db.query(
          `INSERT INTO users (name, email, phone, address, nickname, marketing_agreed)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
          [user.name, user.email, user.phone, user.address, user.nickname, user.marketingAgreed],
        );
        return toUser(rows[0] as Record<string, unknown>);
      } catch (error) {
        if (isUniqueViolation(error)) return 'email-taken';
        throw error;
      }
    },
    async update(id, version, user) {
      try {
        const rows = await db.query(
          `UPDATE users SET name = $3, email = $4, phone = $5, address = $6, nickname = $7, marketing_agreed = $8,
                  version = version + 1
            WHERE id = $1 AND version = $2 RETURNING *`,
          [id, version, user.name, user.email, user.phone, user.address, user.nickname, user.marketingAgreed],
        );
        return rows[0] ? toUser(rows[0]) : 'stale';
      } catch (error) {
        if (isUniqueViolation(error)) return 'email-taken';
        throw error;
      }
    },
    delete(id, version) {
      return db.transaction(async (tx) => {
        const orders = await tx.query('SELECT 1 FROM orders WHERE user_id = $1 LIMIT 1', [id]);
        if (orders.length > 0) return 'has-orders' as const;
        await tx.query('DELETE FROM order_drafts WHERE user_id = $1', [id]);
        // api_keys and ratings go with the user (ON DELETE CASCADE).
        const deleted = await tx.query('DELETE FROM users WHERE id = $1 AND version = $2 RETURNING id', [id, version]);
        return deleted.length > 0 ? ('deleted' as const) : ('stale' as const);
      });
    },
  };
}
