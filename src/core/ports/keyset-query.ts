import type { KeyValues, SortKey } from '../shared/index.js';

/** A keyset page request: rows strictly after `after` in `sort` order, at most `limit`. */
export interface KeysetQuery<Filters> {
  filters: Filters;
  sort: SortKey[];
  after?: KeyValues;
  limit: number;
}
