import type { Context } from 'hono';
import type { Core } from '../core/index.js';
import { type Caller, unauthenticated } from '../core/shared/caller.js';
import { DomainError } from '../core/shared/errors.js';
import { catalogProblem } from './problem.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's caller, resolved once per request by `callerOfRequest`. */
    caller: Promise<Caller | null | 'invalid'>;
  }
}

/** The `WWW-Authenticate` challenge of every 401 (RFC 6750); `invalid_token` when a key was sent but is wrong. */
export const bearerChallenge = (invalid: boolean) =>
  `Bearer realm="order-api"${invalid ? ', error="invalid_token"' : ''}`;

/**
 * The caller of a request on the public port, resolved once and shared by every middleware and handler
 * that asks (the rate budget and the REST handler both need it).
 */
export function callerOfRequest(c: Context, core: Core): Promise<Caller | null | 'invalid'> {
  let caller = c.get('caller') as Promise<Caller | null | 'invalid'> | undefined;
  if (!caller) {
    caller = callerFromAuthorization(core, c.req.header('authorization'));
    c.set('caller', caller);
  }
  return caller;
}

/**
 * Resolves an `Authorization` header for every interface on the public port: `null` without one, the
 * caller for a valid bearer key, `'invalid'` for anything else (a malformed header, a wrong, revoked or expired key).
 */
export async function callerFromAuthorization(
  core: Core,
  header: string | null | undefined,
): Promise<Caller | null | 'invalid'> {
  if (!header) return null;
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!key) return 'invalid';
  try {
    return await core.apiKeys.authenticate(key);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') return 'invalid';
    throw error;
  }
}

/** The 401 of every HTTP route: the catalog's problem with the RFC 6750 challenge. */
export function unauthenticatedResponse(c: Context, reason: 'missing' | 'wrong-key'): Response {
  const error = reason === 'missing' ? unauthenticated.missing() : unauthenticated.wrongKey();
  return catalogProblem(c, error.code, error.detail, undefined, {
    'WWW-Authenticate': bearerChallenge(reason === 'wrong-key'),
  });
}
