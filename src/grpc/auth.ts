import { timingSafeEqual } from 'node:crypto';
import { Code, ConnectError, createContextKey, type Interceptor } from '@connectrpc/connect';
import type { Caller } from '../core/shared/caller.js';
import { toConnectError } from './errors.js';
import { requestHeaderOf } from './grpc-js-context.js';
import { type CallWrapper, callOn } from './service-wrappers.js';

/** The metadata key a caller sends its issued API key in, to be named in deprecation reports. */
export const API_KEY_HEADER = 'x-api-key';

/** The caller a call's `x-api-key` names, once checked; undefined when it sends none (the token alone). */
export const keyCaller = createContextKey<Caller | undefined>(undefined, { description: 'x-api-key caller' });

/** Services that answer without the token (load balancers and orchestrators probe health). */
const OPEN_SERVICES = new Set(['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection']);

/** Whether `authorization` carries the expected `Bearer <token>`, compared in constant time. */
function tokenCheck(token: string): (authorization: string | null) => boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  return (authorization) => {
    const given = Buffer.from(authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

const unauthenticated = () => new ConnectError('a valid internal token is required', Code.Unauthenticated);

/**
 * Requires `authorization: Bearer <INTERNAL_TOKEN>` on every call to the internal services when a token is
 * configured (docs/decisions.md §4); health and reflection stay open. Both gRPC hosts apply it.
 */
export function internalTokenWrapper(token: string): CallWrapper {
  const valid = tokenCheck(token);
  return (method, next) => {
    if (OPEN_SERVICES.has(method.parent.typeName)) return next;
    return (request, context) =>
      valid(requestHeaderOf(context, 'authorization'))
        ? callOn(next, request, context)
        : Promise.reject(unauthenticated());
  };
}

/** The same check for the in-process router transport of the order path (src/grpc/inventory-client.ts). */
export function internalTokenInterceptor(token: string): Interceptor {
  const valid = tokenCheck(token);
  return (next) => async (request) => {
    if (!OPEN_SERVICES.has(request.service.typeName) && !valid(request.header.get('authorization'))) {
      throw unauthenticated();
    }
    return next(request);
  };
}

/**
 * Checks the issued API key a call may send in `x-api-key` (beside the internal token, to be named in
 * deprecation reports) on every call that sends one: a wrong, revoked or expired key is UNAUTHENTICATED.
 * The caller it names is left in the context (`keyCaller`) for what comes after: the deprecation policy
 * counts by it, and an open `WatchStock` re-checks it while it delivers.
 */
export function apiKeyWrapper(authenticate: (secret: string) => Promise<Caller>): CallWrapper {
  return (_method, next) => (request, context) => {
    const secret = requestHeaderOf(context, API_KEY_HEADER);
    if (!secret) return callOn(next, request, context);
    return authenticate(secret.trim()).then(
      (caller) => {
        context.values.set(keyCaller, caller);
        return next(request, context);
      },
      (error: unknown) => {
        throw toConnectError(error);
      },
    );
  };
}
