import { trace } from '@opentelemetry/api';
import { ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Context, MiddlewareHandler } from 'hono';

/** What request tracing needs: how a request's route template is named once it is routed. */
export interface TraceRequestsOptions {
  routeOf: (c: Context) => string;
}

/**
 * Joins the server span the `node:http` instrumentation opened for the request: keeps its trace id for
 * the problem documents (`traceId`), and names the span by route (`POST /v1/orders`), which is known only
 * once the request is routed. Added only when tracing is on.
 */
export function traceRequests({ routeOf }: TraceRequestsOptions): MiddlewareHandler {
  return async function traceRequest(c, next) {
    const span = trace.getActiveSpan();
    if (!span) return next();
    c.set('traceId', span.spanContext().traceId);
    try {
      await next();
    } finally {
      const route = routeOf(c);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute(ATTR_HTTP_ROUTE, route);
    }
  };
}
