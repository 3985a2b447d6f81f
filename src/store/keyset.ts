import type { KeyValues } from '../core/shared/cursor.js';
import type { SortKey } from '../core/shared/paging.js';

/** How a sort field maps to a column and the type its cursor value is cast to. */
export type SortColumns = Record<string, { column: string; cast: string }>;

/** A SQL condition with its parameters, numbered from a given offset. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * Builds the keyset condition "after these key values in this sort": for keys k1..kn,
 * `(k1, k2) > (v1, v2)` when every key runs one way (an index range scan), else the expansion
 * k1 >= v1 AND ((k1 > v1) OR (k1 = v1 AND k2 > v2) OR …), with `<`/`<=` for descending keys, for mixed
 * directions.
 */
export function keysetCondition(
  columns: SortColumns,
  sort: readonly SortKey[],
  after: KeyValues,
  offset: number,
): SqlPart {
  if (after.length !== sort.length) return { sql: 'false', params: [] };
  const params: unknown[] = [];
  const values = sort.map(({ field }, index) => {
    const spec = columns[field];
    if (!spec) throw new Error(`unknown sort field ${field}`);
    params.push(after[index]);
    return { column: spec.column, value: `$${offset + params.length}::${spec.cast}` };
  });
  // One direction throughout: a row-value comparison, which PostgreSQL answers with one index range scan.
  if (sort.every((key) => key.descending === sort[0]?.descending)) {
    const operator = sort[0]?.descending ? '<' : '>';
    return {
      sql: `(${values.map((v) => v.column).join(', ')}) ${operator} (${values.map((v) => v.value).join(', ')})`,
      params,
    };
  }
  const alternatives = sort.map((key, index) => {
    const equalities = values.slice(0, index).map(({ column, value }) => `${column} = ${value}`);
    const { column, value } = values[index] as { column: string; value: string };
    return [...equalities, `${column} ${key.descending ? '<' : '>'} ${value}`].join(' AND ');
  });
  // The expansion implies the first key's bound; stated ahead of it, it gives an index on the first key a
  // place to start (a page deep in a mixed sort read from the start of the index otherwise).
  const [first] = values as [{ column: string; value: string }];
  const lead = `${first.column} ${sort[0]?.descending ? '<=' : '>='} ${first.value}`;
  return { sql: `(${lead} AND (${alternatives.map((alternative) => `(${alternative})`).join(' OR ')}))`, params };
}

/** The ORDER BY clause of a sort. */
export function orderBy(columns: SortColumns, sort: readonly SortKey[]): string {
  return sort
    .map(({ field, descending }) => {
      const spec = columns[field];
      if (!spec) throw new Error(`unknown sort field ${field}`);
      return `${spec.column} ${descending ? 'DESC' : 'ASC'}`;
    })
    .join(', ');
}

/** The parts of one keyset page query. */
export interface PageQuery {
  from: string;
  columns: SortColumns;
  where?: SqlPart;
  sort: readonly SortKey[];
  after?: KeyValues;
  limit: number;
  select?: string;
}

/** Builds `SELECT … WHERE filters AND keyset ORDER BY sort LIMIT n`: never OFFSET, so every page costs the same. */
export function pageSql({ from, columns, where, sort, after, limit, select = '*' }: PageQuery): SqlPart {
  const filters = where?.sql ? where : { sql: '', params: [] };
  const keyset = after ? keysetCondition(columns, sort, after, filters.params.length) : undefined;
  const conditions = [filters.sql, keyset?.sql].filter(Boolean).join(' AND ');
  const params = [...filters.params, ...(keyset?.params ?? []), limit];
  return {
    sql: `SELECT ${select} FROM ${from} ${conditions ? `WHERE ${conditions}` : ''} ORDER BY ${orderBy(columns, sort)} LIMIT $${params.length}`,
    params,
  };
}
