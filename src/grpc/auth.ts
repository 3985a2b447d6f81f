import { timingSafeEqual } from 'node:crypto';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

/** Services that answer without the token (load balancers and orchestrators probe health). */
const OPEN_SERVICES = new Set(['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection']);

/**
 * Requires `authorization: Bearer <INTERNAL_TOKEN>` on every call to the internal services when a token is
 * configured (docs/decisions.md §4); health stays open.
 */
export function internalTokenInterceptor(token: string): Interceptor {
  const expected = Buffer.from(`Bearer ${token}`);
  return (next) => async (request) => {
    if (!OPEN_SERVICES.has(request.service.typeName)) {
      const given = Buffer.from(request.header.get('authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ConnectError('a valid internal token is required', Code.Unauthenticated);
      }
    }
    return next(request);
  };
}
