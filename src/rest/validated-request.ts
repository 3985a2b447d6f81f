import type { Context } from 'hono';
import { type Caller, requireCaller } from '../core/shared/caller.js';
import type { ListInput } from '../core/shared/paging.js';

export { type OrderConditions, orderFilters } from '../core/orders/order-filters.js';
export { queryConditions } from './order-query.js';

/** One validated REST request as a handler sees it. */
export interface RestRequest {
  c: Context;
  operationId: string;
  /** The URL prefix of the version the request named (`/v2`): the paths its answer names start there. */
  base: string;
  /** Path ids, already known to be positive integers (or, for a string parameter, to match its pattern). */
  params: Record<string, number | string>;
  /** Query parameters (each given once), `status` upper-cased. */
  query: Record<string, string>;
  body: unknown;
  /** The authenticated caller; undefined only on operations that need no credential. */
  caller: Caller | undefined;
  /** The members `fields` asks for (a partial answer, shaped by `json`); undefined for a full answer. */
  fields: ReadonlySet<string> | undefined;
  header(name: string): string | undefined;
}

/** The caller of an operation that requires one (the pipeline has already answered 401 otherwise). */
export function callerOf(request: RestRequest): Caller {
  return requireCaller(request.caller);
}

/** A path id: the router has already matched it as a positive integer. */
export function pathId(request: RestRequest, name: string): number {
  return request.params[name] as number;
}

/** The version the request's `If-Match` names (`ifMatchVersion`). */
export function ifMatchOf(request: RestRequest): number | undefined {
  return ifMatchVersion(request.header('if-match'));
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

/** `include` as a set of parts (already validated against the contract's enum). */
export function includes(value: string | string[] | undefined): Set<string> {
  if (value === undefined) return new Set();
  return new Set(Array.isArray(value) ? value : value.split(','));
}

/** A request that asks for a partial answer (partial-response.ts). */
export interface PartialRequest {
  /** The top-level members the answer keeps (of each item, on a list). */
  fields: ReadonlySet<string>;
  /** The query, with `include` holding the opt-in parts that `fields` names (`amountDetail`). */
  query: Record<string, string>;
}

/** Members that only an `include` part adds: naming one in `fields` includes it. */
const INCLUDED_MEMBERS = ['amountDetail'];

/**
 * The `fields` of a request whose names the contract has checked: the query's (comma-separated; the
 * repeated form is joined by readQuery) or the search body's array. Undefined when it names none.
 */
export function partialRequest(query: Record<string, string>, body: unknown): PartialRequest | undefined {
  const sent = query.fields ?? (body as { fields?: string[] } | null | undefined)?.fields;
  if (sent === undefined) return undefined;
  const fields = new Set(typeof sent === 'string' ? sent.split(',') : sent);
  const implied = INCLUDED_MEMBERS.filter((name) => fields.has(name));
  if (implied.length === 0) return { fields, query };
  const parts = includes(query.include ?? (body as { include?: string[] } | null | undefined)?.include);
  for (const name of implied) parts.add(name);
  return { fields, query: { ...query, include: [...parts].join(',') } };
}

/** The version an `If-Match` header names: undefined when absent or `*`, -1 when it matches no version. */
export function ifMatchVersion(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  // The ETag of a trimmed answer (`"<version>-withheld"`) names the same version.
  const versions = header.split(',').map((tag) => /^\s*(?:W\/)?"(\d+)(?:-withheld)?"\s*$/.exec(tag)?.[1]);
  const version = versions.find((found) => found !== undefined);
  return version === undefined ? -1 : Number(version);
}

/** Whether `If-None-Match` names the current ETag (or `*`). */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
