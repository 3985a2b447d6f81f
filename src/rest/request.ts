import type { Context } from 'hono';
import type { Caller } from '../core/caller.js';
import { DomainError, type Violation } from '../core/errors.js';
import { toMinor } from '../core/money.js';
import { type OrderStatus, orderStatuses } from '../core/order-state.js';
import type { ListInput } from '../core/paging.js';
import type { OrderFilters } from '../core/ports.js';

/** One validated REST request as a handler sees it. */
export interface RestRequest {
  c: Context;
  operationId: string;
  /** Path ids, already known to be positive integers. */
  params: Record<string, number>;
  /** Query parameters (each given once), `status` upper-cased. */
  query: Record<string, string>;
  body: unknown;
  /** The authenticated caller; undefined only on operations that need no credential. */
  caller: Caller | undefined;
  header(name: string): string | undefined;
}

/** The caller of an operation that requires one (the pipeline has already answered 401 otherwise). */
export function callerOf(request: RestRequest): Caller {
  if (!request.caller) throw new DomainError('UNAUTHENTICATED', 'This operation needs an API key.');
  return request.caller;
}

/** The paging parameters every list takes. */
export function listInput(query: Record<string, string>): ListInput {
  return {
    ...(query.sort ? { sort: query.sort } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.size ? { size: Number(query.size) } : {}),
    ...(query.withTotal ? { withTotal: query.withTotal === 'true' } : {}),
  };
}

/** The order filters of the query string or the search body, normalized so both give one cursor digest. */
export interface OrderConditions {
  status?: string[] | string;
  userId?: number | string;
  from?: string;
  to?: string;
  minAmount?: number | string;
  hasCoupon?: boolean | string;
  q?: string;
  ids?: number[];
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
  if (conditions.userId !== undefined) filters.userId = Number(conditions.userId);
  if (conditions.from !== undefined) filters.from = instant(conditions.from, 'start');
  if (conditions.to !== undefined) filters.to = instant(conditions.to, 'end');
  if (conditions.minAmount !== undefined) filters.minAmount = toMinor(Number(conditions.minAmount), 'minAmount');
  if (conditions.hasCoupon !== undefined) filters.hasCoupon = String(conditions.hasCoupon) === 'true';
  if (conditions.q !== undefined) filters.q = conditions.q;
  if (conditions.ids !== undefined) filters.ids = [...conditions.ids].sort((a, b) => a - b);
  return filters;
}

/** A date means midnight UTC (`start`) or the last millisecond of that day (`end`); a date-time is itself. */
function instant(value: string, edge: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const midnight = new Date(`${value}T00:00:00.000Z`);
    return edge === 'start' ? midnight : new Date(midnight.getTime() + 86_400_000 - 1);
  }
  return new Date(value);
}

/** `include` as a set of parts (already validated against the contract's enum). */
export function includes(value: string | string[] | undefined): Set<string> {
  if (value === undefined) return new Set();
  return new Set(Array.isArray(value) ? value : value.split(','));
}

/** The version an `If-Match` header names: undefined when absent or `*`, -1 when it matches no version. */
export function ifMatchVersion(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const versions = header.split(',').map((tag) => /^\s*(?:W\/)?"(\d+)"\s*$/.exec(tag)?.[1]);
  const version = versions.find((found) => found !== undefined);
  return version === undefined ? -1 : Number(version);
}

/** Whether `If-None-Match` names the current ETag (or `*`). */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
