import { DomainError } from './errors.js';

/** Default and maximum page size (spec §8: larger sizes are cut, not rejected). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** One key of a sort: a whitelisted field and a direction. */
export interface SortKey {
  field: string;
  descending: boolean;
}

/** A page of results in the shape every list answers. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  hasNext: boolean;
  totalCount?: number;
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
