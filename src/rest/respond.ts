import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components } from '../../generated/openapi/schema.js';
import { canonicalJson } from '../core/canonical-json.js';
import { DomainError, type Violation } from '../core/errors.js';
import type { CreateOptions } from '../core/idempotency.js';
import type { Address } from '../core/model.js';
import { answer } from '../http/edge-headers.js';
import { etagOf } from './mappers.js';
import { noneMatchHits, type RestRequest } from './validated-request.js';

/** The contract's schemas: the wire types handlers read and write. */
export type Schemas = components['schemas'];

/** One REST operation: a validated request in, a response out. */
export type Handler = (request: RestRequest) => Promise<Response>;

/** A JSON response. */
export const json = (c: Context, status: ContentfulStatusCode, body: unknown, headers: Record<string, string> = {}) =>
  answer(c, JSON.stringify(body), status, { ...headers, 'content-type': 'application/json' });

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
  const etag = etagOf(version);
  if (noneMatchHits(request.header('if-none-match'), etag)) return answer(request.c, null, 304, { ETag: etag });
  return json(request.c, 200, body(), { ETag: etag });
}

/** Refuses read-only members sent with a value other than the current one (docs/decisions.md §3). */
export function checkReadOnly(
  body: Record<string, unknown>,
  current: Record<string, unknown>,
  names: readonly string[],
) {
  const violations: Violation[] = [];
  for (const name of names) {
    if (name in body && canonicalJson(body[name]) !== canonicalJson(current[name])) {
      violations.push({
        in: 'body',
        name: `/${name}`,
        message: 'is read-only; send the current value or leave it out',
      });
    }
  }
  if (violations.length > 0) {
    throw new DomainError(
      'READ_ONLY_FIELD',
      `Read-only members cannot be changed: ${violations.map((v) => v.name).join(', ')}.`,
      violations,
    );
  }
}

/** The core's address from the wire's. */
export function address(value: Schemas['Address']): Address {
  return { zipCode: value.zipCode, line1: value.line1, line2: value.line2 ?? null };
}
