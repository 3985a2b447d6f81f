import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components, operations } from '../../generated/openapi/schema.js';
import type { CreateOptions } from '../core/idempotency/idempotency.js';
import type { Caller } from '../core/shared/caller.js';
import type { Address } from '../core/shared/model.js';
import type { WriteConditions } from '../core/shared/versions.js';
import { answer } from '../http/edge-headers.js';
import { etagOf } from './mappers.js';
import { selectMembers } from './partial-response.js';
import { callerOf, ifMatchOf, noneMatchHits, pathId, type RestRequest } from './validated-request.js';

/** The contract's schemas: the wire types handlers read and write. */
export type Schemas = components['schemas'];

/** One REST operation: a validated request in, a response out. */
export type Handler = (request: RestRequest) => Promise<Response>;

/** The operations the health routes serve outside `/v1` (src/http/health-routes.ts), not REST handlers. */
export const HEALTH_OPERATIONS = ['getHealth', 'getReadiness', 'getLiveness'] as const;

/** Every operationId of contracts/openapi.yaml that a REST handler serves (webhooks are sent, not served). */
export type RestOperationId = Exclude<keyof operations, (typeof HEALTH_OPERATIONS)[number] | `${string}Webhook`>;

/** A handler for every REST operation of the contract: a missing one is a type error. */
export type RestHandlers = Record<RestOperationId, Handler>;

/** Some of the handlers, by operationId: a name that is no operation of the contract is a type error. */
export type RestHandlerGroup = Partial<RestHandlers>;

/**
 * A JSON response. A 2xx answer holds only the members the request's `fields` names (the `fields`
 * variable, set by the pipeline): every partial answer is shaped here, none in a handler.
 */
export const json = (c: Context, status: ContentfulStatusCode, body: unknown, headers: Record<string, string> = {}) =>
  answer(c, JSON.stringify(status < 300 ? selectMembers(body, c.get('fields')) : body), status, {
    ...headers,
    'content-type': 'application/json',
  });

/** An empty 204. */
export const noContent = (c: Context) => answer(c, null, 204, {});

/** `Idempotent-Replayed: true` on a replayed create. */
export const replayHeader = (replayed: boolean): Record<string, string> =>
  replayed ? { 'Idempotent-Replayed': 'true' } : {};

/** A create's request options: the `Idempotency-Key` header and the request's abort signal. */
export function createOptions(request: RestRequest): CreateOptions {
  return { idempotencyKey: request.header('idempotency-key'), signal: request.c.req.raw.signal };
}

/** Answers 304 when `If-None-Match` names the current ETag, else the representation with its ETag. */
export function conditionalGet(request: RestRequest, version: number, body: () => unknown): Response {
  const etag = etagOf(version, request.c.get('trimmed') === true);
  if (noneMatchHits(request.header('if-none-match'), etag)) return answer(request.c, null, 304, { ETag: etag });
  return json(request.c, 200, body(), { ETag: etag });
}

/** How a resource is answered after a PUT or PATCH, and how its read-only members are compared. */
export interface WriteViews<T> {
  /** The representation the request asked for. */
  answer(resource: T): unknown;
  /** The full representation, which a body's read-only members are compared with (by the core). */
  full(resource: T): Readonly<Record<string, unknown>>;
}

/**
 * A PUT or PATCH of the resource at the path id `pathParameter`: the core's write runs with the request's
 * `If-Match` and with what the body echoed of read-only members, and is answered 200 with its new ETag.
 */
export async function versionedWrite<T extends { version: number }>(
  request: RestRequest,
  pathParameter: string,
  write: (caller: Caller, id: number, conditions: WriteConditions<T>) => Promise<T>,
  views: WriteViews<T>,
): Promise<Response> {
  const echo = { sent: request.body as Record<string, unknown>, view: views.full };
  const written = await write(callerOf(request), pathId(request, pathParameter), {
    ifMatchVersion: ifMatchOf(request),
    echo,
  });
  return json(request.c, 200, views.answer(written), { ETag: etagOf(written.version) });
}

/** The core's address from the wire's. */
export function address(value: Schemas['Address']): Address {
  return { zipCode: value.zipCode, line1: value.line1, line2: value.line2 ?? null };
}
