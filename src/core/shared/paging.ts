import { type CursorCodec, filterDigest, type KeyValues } from './cursor.js';
import { DomainError } from './errors.js';

/** Default and maximum page size (docs/decisions.md §3: larger sizes are cut, not rejected). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** One key of a sort: a whitelisted field and a direction. */
export interface SortKey {
  field: string;
  descending: boolean;
}

/** What every list request may carry. */
export interface ListInput {
  sort?: string;
  cursor?: string;
  size?: number;
  withTotal?: boolean;
  /**
   * The API version that changed this list's resource and answers it (`v2` of orders), which binds its
   * cursors; absent for v1 and for lists no version changed (their cursors serve every version).
   */
  cursorVersion?: string;
}

/** A page of results in the shape every list answers. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  hasNext: boolean;
  totalCount?: number;
  /** The cursor that continues after an item of this page (made on demand: Relay edges ask per item). */
  cursorOf?: (item: T) => string;
}

/**
 * Parses `sort` (`-createdAt,amount`: comma-separated keys, a leading minus for descending) against a
 * list's whitelist, and appends `id` as the final tie-breaker so that every order is total.
 */
export function parseSort(input: string | undefined, allowed: readonly string[], fallback: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of (input ?? fallback).split(',')) {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    // A key named again cannot change the order its first mention set: it is read once (the contracts'
    // patterns allow repeats, `createdAt,-createdAt` sorts by `createdAt`).
    if (keys.some((key) => key.field === field)) continue;
    if (!allowed.includes(field)) {
      throw new DomainError('VALIDATION_FAILED', `sort key "${part}" is not allowed here; use ${allowed.join(', ')}.`, [
        { in: 'query', name: 'sort', message: `must be a comma-separated list of ${allowed.join(', ')}` },
      ]);
    }
    keys.push({ field, descending });
  }
  if (!keys.some((key) => key.field === 'id')) keys.push({ field: 'id', descending: keys.at(-1)?.descending ?? false });
  return keys;
}

/** The canonical text of a sort, as carried in cursors. */
export function formatSort(keys: readonly SortKey[]): string {
  return keys.map((key) => (key.descending ? `-${key.field}` : key.field)).join(',');
}

/** Applies the page-size rule: default 20, cut to 100, below 1 is an error. */
export function pageSize(size: number | undefined): number {
  if (size === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1) {
    throw new DomainError('VALIDATION_FAILED', 'size must be an integer of at least 1.', [
      { in: 'query', name: 'size', message: 'must be an integer >= 1' },
    ]);
  }
  return Math.min(size, MAX_PAGE_SIZE);
}

/** What reading one keyset page takes; the list's own query and key extraction are passed in. */
export interface PageRequest<T> {
  cursors: CursorCodec;
  sort: SortKey[];
  size: number | undefined;
  cursor: string | undefined;
  /** The normalized filters; their digest binds the cursor. */
  filters: Record<string, unknown>;
  withTotal: boolean | undefined;
  /** The version that binds the cursors (ListInput's `cursorVersion`). */
  version?: string | undefined;
  fetch(after: KeyValues | undefined, limit: number): Promise<T[]>;
  count(): Promise<number>;
  /** The sort-key values of an item, in sort order. */
  keys(item: T, sort: readonly SortKey[]): KeyValues;
}

/**
 * Reads one page: one row more than the page size tells whether a next page exists, the cursor carries
 * the last item's keys, and `totalCount` is counted only when asked for.
 */
export async function readPage<T>(request: PageRequest<T>): Promise<Page<T>> {
  const limit = pageSize(request.size);
  const sortText = formatSort(request.sort);
  const digest = filterDigest(request.filters);
  const after =
    request.cursor === undefined
      ? undefined
      : request.cursors.decode(request.cursor, sortText, digest, request.version);
  const [rows, totalCount] = await Promise.all([
    request.fetch(after, limit + 1),
    request.withTotal ? request.count() : Promise.resolve(undefined),
  ]);
  const items = rows.slice(0, limit);
  const hasNext = rows.length > limit;
  const last = items.at(-1);
  const cursorOf = (item: T) =>
    request.cursors.encode(sortText, digest, request.keys(item, request.sort), request.version);
  return {
    items,
    hasNext,
    cursorOf,
    ...(hasNext && last ? { nextCursor: cursorOf(last) } : {}),
    ...(totalCount === undefined ? {} : { totalCount }),
  };
}

/** How an in-memory list reads one sort key of an item: a string (timestamps as ISO text) or a number. */
export type SortValue<T> = (item: T, field: string) => string | number;

/** A member read as a sort key: the member of that name, a `Date` as its ISO text. */
export const memberValue = <T>(item: T, field: string): string | number => {
  const value = (item as Record<string, unknown>)[field];
  return value instanceof Date ? value.toISOString() : (value as string | number);
};

/** Compares two items' sort-key values under a sort, key by key. */
function compareKeys(a: KeyValues, b: KeyValues, sort: readonly SortKey[]): number {
  for (const [index, { descending }] of sort.entries()) {
    const x = a[index] as string | number;
    const y = b[index] as string | number;
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
}

/**
 * Pages a list already in memory (the items of one order, the admin lists of brownouts, deprecations,
 * callers and notices) with the same cursors, sizes and envelope as every other list. `sortValueOf` reads a
 * sort key of an item; by default its member of that name.
 */
export function pageInMemory<T>(
  all: readonly T[],
  request: Omit<PageRequest<T>, 'fetch' | 'count' | 'keys'> & { sortValueOf?: SortValue<T> },
): Promise<Page<T>> {
  const sortValueOf = request.sortValueOf ?? memberValue;
  const keys = (item: T, sort: readonly SortKey[]) => sort.map(({ field }) => sortValueOf(item, field));
  const sorted = all
    .map((item) => ({ item, keys: keys(item, request.sort) }))
    .sort((a, b) => compareKeys(a.keys, b.keys, request.sort));
  return readPage({
    ...request,
    keys,
    count: async () => all.length,
    async fetch(after, limit) {
      const rest = after ? sorted.filter((entry) => compareKeys(entry.keys, after, request.sort) > 0) : sorted;
      return rest.slice(0, limit).map((entry) => entry.item);
    },
  });
}
