import type { KeyValues } from '../core/cursor.js';
import type { SortKey } from '../core/paging.js';
import type { OrderFilters } from '../core/ports.js';

const columns: Record<string, { column: string; cast: string }> = {
  createdAt: { column: 'o.created_at', cast: 'timestamptz' },
  amount: { column: 'o.amount_minor', cast: 'bigint' },
  id: { column: 'o.id', cast: 'bigint' },
};

/** A SQL condition with its parameters, numbered from a given offset. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Builds the WHERE conditions of the order filters. */
export function orderConditions(filters: OrderFilters): SqlPart {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.status?.length) conditions.push(`o.status = ANY(${param(filters.status)}::text[])`);
  if (filters.userId !== undefined) conditions.push(`o.user_id = ${param(filters.userId)}`);
  if (filters.from) conditions.push(`o.created_at >= ${param(filters.from)}`);
  if (filters.to) conditions.push(`o.created_at <= ${param(filters.to)}`);
  if (filters.minAmount !== undefined) conditions.push(`o.amount_minor >= ${param(filters.minAmount)}`);
  if (filters.hasCoupon !== undefined)
    conditions.push(filters.hasCoupon ? 'o.coupon_code IS NOT NULL' : 'o.coupon_code IS NULL');
  if (filters.ids?.length) conditions.push(`o.id = ANY(${param(filters.ids)}::bigint[])`);
  if (filters.q) {
    const pattern = param(`%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conditions.push(
      `(o.note ILIKE ${pattern} OR EXISTS (SELECT 1 FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.order_id = o.id AND p.name ILIKE ${pattern}))`,
    );
  }
  return { sql: conditions.join(' AND '), params };
}

/**
 * Builds the keyset condition "after these key values in this sort": for keys k1..kn,
 * (k1 > v1) OR (k1 = v1 AND k2 > v2) OR …, with `<` for descending keys. It works for mixed directions,
 * and PostgreSQL still walks the matching index for the leading key.
 */
export function keysetCondition(sort: readonly SortKey[], after: KeyValues, offset: number): SqlPart {
  if (after.length !== sort.length) return { sql: 'false', params: [] };
  const params: unknown[] = [];
  const values = sort.map(({ field }, index) => {
    const spec = columns[field];
    if (!spec) throw new Error(`unknown sort field ${field}`);
    params.push(after[index]);
    return { column: spec.column, value: `$${offset + params.length}::${spec.cast}` };
  });
  const alternatives = sort.map((key, index) => {
    const equalities = values.slice(0, index).map(({ column, value }) => `${column} = ${value}`);
    const { column, value } = values[index] as { column: string; value: string };
    return [...equalities, `${column} ${key.descending ? '<' : '>'} ${value}`].join(' AND ');
  });
  return { sql: `(${alternatives.map((alternative) => `(${alternative})`).join(' OR ')})`, params };
}

/** The ORDER BY clause of a sort. */
export function orderBy(sort: readonly SortKey[]): string {
  return sort.map(({ field, descending }) => `${columns[field]?.column} ${descending ? 'DESC' : 'ASC'}`).join(', ');
}

/** Renumbers `$n` placeholders of a condition built from 1 so that it follows `offset` earlier ones. */
export function shift(part: SqlPart, offset: number): SqlPart {
  return { sql: part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`), params: part.params };
}
