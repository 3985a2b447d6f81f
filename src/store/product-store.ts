import type { Store } from '../core/ports/index.js';
import type { Database } from './database.js';
import { pageSql, type SortColumns } from './keyset.js';
import { isUniqueViolation, PRODUCT_COLUMNS, PRODUCT_RATINGS, toProduct, toRating } from './rows.js';

/** The sortable columns of the product list. */
const productColumns: SortColumns = {
  name: { column: 'p.name', cast: 'text' },
  id: { column: 'p.id', cast: 'bigint' },
};

/** Products (with their stock row) in PostgreSQL. */
export function productStore(db: Database): Store['products'] {
  return {
    async get(id) {
      const rows = await db.query(`SELECT ${PRODUCT_COLUMNS} FROM products p ${PRODUCT_RATINGS} WHERE p.id = $1`, [id]);
      return rows[0] && toProduct(rows[0]);
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      const rows = await db.query(
        `SELECT ${PRODUCT_COLUMNS} FROM products p ${PRODUCT_RATINGS} WHERE p.id = ANY($1::bigint[])`,
        [ids],
      );
      return rows.map(toProduct);
    },
    async list({ sort, after, limit }) {
      const query = pageSql({
        from: `products p ${PRODUCT_RATINGS}`,
        select: PRODUCT_COLUMNS,
        columns: productColumns,
        sort,
        limit,
        ...(after ? { after } : {}),
      });
      return (await db.query(query.sql, query.params)).map(toProduct);
    },
    async count() {
      const rows = await db.query<{ count: number }>('SELECT count(*) AS count FROM products');
      return rows[0]?.count ?? 0;
    },
    async insert(product, stock) {
      try {
        return await db.transaction(async (tx) => {
          const rows = await tx.query(
            `INSERT INTO products (name, image_url, sku, price_minor) VALUES ($1, $2, $3, $4) RETURNING *, NULL::numeric AS rating, 0 AS rating_count`,
            [product.name, product.imageUrl, product.sku, product.price],
          );
          await tx.query('INSERT INTO stock (sku, on_hand) VALUES ($1, $2)', [product.sku, stock]);
          return toProduct(rows[0] as Record<string, unknown>);
        });
      } catch (error) {
        if (isUniqueViolation(error)) return 'sku-taken';
        throw error;
      }
    },
  };
}

/** Ratings in PostgreSQL, one per user and product. */
export function ratingStore(db: Database): Store['ratings'] {
  return {
    async get(productId, userId) {
      const rows = await db.query('SELECT * FROM ratings WHERE product_id = $1 AND user_id = $2', [productId, userId]);
      return rows[0] && toRating(rows[0]);
    },
    async put(productId, userId, score, comment) {
      const rows = await db.query(
        `INSERT INTO ratings (product_id, user_id, score, comment) VALUES ($1, $2, $3, $4)
         ON CONFLICT (product_id, user_id)
         DO UPDATE SET score = EXCLUDED.score, comment = EXCLUDED.comment, updated_at = date_trunc('milliseconds', now())
         RETURNING *, (xmax = 0) AS created`,
        [productId, userId, score, comment],
      );
      const row = rows[0] as Record<string, unknown>;
      return { rating: toRating(row), created: row.created as boolean };
    },
  };
}
