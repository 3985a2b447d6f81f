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
    if (!allowed.includes(field) || keys.some((key) => key.field === field)) {
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
  const after = request.cursor === undefined ? undefined : request.cursors.decode(request.cursor, sortText, digest);
  const [rows, totalCount] = await Promise.all([
    request.fetch(after, limit + 1),
    request.withTotal ? request.count() : Promise.resolve(undefined),
  ]);
  const items = rows.slice(0, limit);
  const hasNext = rows.length > limit;
  const last = items.at(-1);
  const cursorOf = (item: T) => request.cursors.encode(sortText, digest, request.keys(item, request.sort));
  return {
    items,
    hasNext,
    cursorOf,
    ...(hasNext && last ? { nextCursor: cursorOf(last) } : {}),
    ...(totalCount === undefined ? {} : { totalCount }),
  };
}

/** Pages a list already in memory (the items of one order) with the same cursors as every other list. */
export function pageInMemory<T extends Record<string, unknown>>(
  all: readonly T[],
  request: Omit<PageRequest<T>, 'fetch' | 'count' | 'keys'>,
): Promise<Page<T>> {
  const compare = (a: T, b: T) => {
    for (const { field, descending } of request.sort) {
      const x = a[field] as string | number;
      const y = b[field] as string | number;
      if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  };
  const keys = (item: T, sort: readonly SortKey[]) => sort.map(({ field }) => item[field] as string | number);
  const sorted = [...all].sort(compare);
  return readPage({
    ...request,
    keys,
    count: async () => all.length,
    async fetch(after, limit) {
      if (!after) return sorted.slice(0, limit);
      const marker = Object.fromEntries(request.sort.map(({ field }, index) => [field, after[index]])) as T;
      return sorted.filter((item) => compare(item, marker) > 0).slice(0, limit);
    },
  });
}
