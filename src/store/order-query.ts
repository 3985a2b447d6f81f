import type { OrderFilters } from '../core/ports/index.js';
import type { SortColumns, SqlPart } from './keyset.js';

/** The sortable columns of the order list. */
export const orderColumns: SortColumns = {
  createdAt: { column: 'o.created_at', cast: 'timestamptz' },
  amount: { column: 'o.amount_minor', cast: 'bigint' },
  id: { column: 'o.id', cast: 'bigint' },
};

/** Builds the WHERE conditions of the order filters. */
export function orderConditions(filters: OrderFilters): SqlPart {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // One status by equality, so that an index led by the status supplies the sort too.
  if (filters.status?.length === 1) conditions.push(`o.status = ${param(filters.status[0])}`);
  else if (filters.status?.length) conditions.push(`o.status = ANY(${param(filters.status)}::text[])`);
  if (filters.userId !== undefined) conditions.push(`o.user_id = ${param(filters.userId)}`);
  if (filters.from) conditions.push(`o.created_at >= ${param(filters.from)}`);
  if (filters.to) conditions.push(`o.created_at <= ${param(filters.to)}`);
  if (filters.minAmount !== undefined) conditions.push(`o.amount_minor >= ${param(filters.minAmount)}`);
  if (filters.hasCoupon !== undefined)
    conditions.push(filters.hasCoupon ? 'o.coupon_code IS NOT NULL' : 'o.coupon_code IS NULL');
  if (filters.ids?.length) conditions.push(`o.id = ANY(${param(filters.ids)}::bigint[])`);
  if (filters.q) {
    const pattern = param(`%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    // One column holds the note and the items' product names, one per line (migration 0025), under a
    // trigram index. A term with a line break could span two of them there: it is checked against each too.
    conditions.push(`o.search_text ILIKE ${pattern}`);
    if (filters.q.includes('\n')) {
      conditions.push(
        `(o.note ILIKE ${pattern} OR EXISTS (SELECT 1 FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.order_id = o.id AND p.name ILIKE ${pattern}))`,
      );
    }
  }
  return { sql: conditions.join(' AND '), params };
}
