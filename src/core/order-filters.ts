import { checkLength, MAX_LENGTH } from './bounds.js';
import { toMinor } from './decimal-amounts.js';
import { DomainError, type Violation } from './errors.js';
import { type OrderStatus, orderStatuses } from './order-state.js';
import type { OrderFilters } from './ports/index.js';

/** The order filters of the query string or the search body, normalized so both give one cursor digest. */
export interface OrderConditions {
  status?: string[] | string;
  userId?: number | string;
  from?: string;
  to?: string;
  minAmount?: number | string;
  hasCoupon?: boolean | string;
  q?: string;
  ids?: Array<number | string>;
}

/** Normalizes list conditions into the core's filters; `in` says where a bad value was found. */
export function orderFilters(conditions: OrderConditions, where: Violation['in']): OrderFilters {
  const filters: OrderFilters = {};
  if (conditions.status !== undefined) {
    const values = Array.isArray(conditions.status) ? conditions.status : conditions.status.split(',');
    const upper = [...new Set(values.map((value) => value.trim().toUpperCase()))].sort();
    for (const value of upper) {
      if (!orderStatuses.includes(value as OrderStatus)) {
        throw new DomainError('VALIDATION_FAILED', `status "${value}" is not one of ${orderStatuses.join(', ')}.`, [
          {
            in: where,
            name: where === 'body' ? '/status' : 'status',
            message: `must be one of ${orderStatuses.join(', ')}`,
          },
        ]);
      }
    }
    filters.status = upper as OrderStatus[];
  }
  if (conditions.userId !== undefined) filters.userId = integerOf(conditions.userId, 'userId', where);
  if (conditions.from !== undefined) filters.from = instant(conditions.from, 'start');
  if (conditions.to !== undefined) filters.to = instant(conditions.to, 'end');
  if (conditions.minAmount !== undefined) filters.minAmount = toMinor(Number(conditions.minAmount), 'minAmount');
  if (conditions.hasCoupon !== undefined) filters.hasCoupon = String(conditions.hasCoupon) === 'true';
  if (conditions.q !== undefined) {
    checkLength(conditions.q, MAX_LENGTH.searchText, where === 'body' ? '/q' : 'q', where);
    filters.q = conditions.q;
  }
  if (conditions.ids !== undefined) {
    filters.ids = conditions.ids.map((id) => integerOf(id, 'ids', where)).sort((a, b) => a - b);
  }
  return filters;
}

/** An id condition as an integer; text that is not one (`"abc"`) is the caller's error, not a NaN query. */
function integerOf(value: number | string, name: string, where: Violation['in']): number {
  const number = typeof value === 'number' ? value : /^-?\d{1,16}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    throw new DomainError('VALIDATION_FAILED', `${name} "${value}" is not an integer id.`, [
      { in: where, name: where === 'body' ? `/${name}` : name, message: 'must be an integer id' },
    ]);
  }
  return number;
}

/** A date means midnight UTC (`start`) or the last millisecond of that day (`end`); a date-time is itself. */
function instant(value: string, edge: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const midnight = new Date(`${value}T00:00:00.000Z`);
    return edge === 'start' ? midnight : new Date(midnight.getTime() + 86_400_000 - 1);
  }
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw new DomainError('VALIDATION_FAILED', `"${value}" is not an RFC 3339 date or date-time.`, [
      { in: 'query', name: edge === 'start' ? 'from' : 'to', message: 'must be an RFC 3339 date or date-time' },
    ]);
  }
  return date;
}
