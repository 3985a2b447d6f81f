import type { OrderFilters } from '../ports/index.js';
import type { OrderStatus } from '../shared/index.js';
import { minorAtLeast } from '../shared/index.js';

/**
 * The order filters of the search body, the query string (as src/rest/order-query.ts reads its text) or
 * GraphQL's `OrderFilter`, as their transport checked them against its contract (types, formats, bounds).
 */
export interface OrderConditions {
  /** Order states in any case; a state given twice counts once. */
  status?: readonly string[];
  userId?: number;
  /** An RFC 3339 date or date-time. */
  from?: string;
  to?: string;
  minAmount?: number;
  hasCoupon?: boolean;
  q?: string;
  ids?: readonly number[];
}

/** Normalizes list conditions into the core's filters, so that the same conditions give one cursor digest. */
export function orderFilters(conditions: OrderConditions): OrderFilters {
  const filters: OrderFilters = {};
  if (conditions.status !== undefined) {
    filters.status = [...new Set(conditions.status.map((value) => value.toUpperCase()))].sort() as OrderStatus[];
  }
  if (conditions.userId !== undefined) filters.userId = conditions.userId;
  if (conditions.from !== undefined) filters.from = instant(conditions.from, 'start');
  if (conditions.to !== undefined) filters.to = instant(conditions.to, 'end');
  if (conditions.minAmount !== undefined) filters.minAmount = minorAtLeast(conditions.minAmount);
  if (conditions.hasCoupon !== undefined) filters.hasCoupon = conditions.hasCoupon;
  if (conditions.q !== undefined) filters.q = conditions.q;
  if (conditions.ids !== undefined) filters.ids = [...new Set(conditions.ids)].sort((a, b) => a - b);
  return filters;
}

/**
 * An RFC 3339 date means midnight UTC (`start`) or the last millisecond of that day (`end`); a date-time
 * (`T` or `t`, `Z` or `z`, as RFC 3339 allows) is itself, and a leap second (`23:59:60`) is the second
 * after `23:59:59`, which JavaScript's dates cannot name.
 */
function instant(value: string, edge: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const midnight = new Date(`${value}T00:00:00.000Z`);
    return edge === 'start' ? midnight : new Date(midnight.getTime() + DAY_MS - 1);
  }
  // JavaScript's dates read at most milliseconds: digits past them cannot move the instant by a whole one.
  const text = value.toUpperCase().replace(/(\.\d{3})\d+/, '$1');
  const date = new Date(text);
  if (!Number.isNaN(date.getTime())) return date;
  return new Date(new Date(text.replace(/:60(?=[.Z+-]|$)/, ':59')).getTime() + 1000);
}

const DAY_MS = 86_400_000;
