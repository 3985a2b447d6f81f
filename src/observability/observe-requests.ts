import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';

/** The status recorded for a request whose client closed the connection before its answer. */
const CLIENT_CLOSED_REQUEST = 499;

/** What request observation needs: where lines and numbers go, and how a request's route is named. */
export interface ObserveOptions {
  logger: Logger;
  metrics: Metrics;
  routeOf: (c: Context) => string;
}

/**
 * One structured log line per request (method, path, status, duration, request id, client) and the
 * request counters and duration histogram, measured once.
 */
export function observeRequests({ logger, metrics, routeOf }: ObserveOptions): MiddlewareHandler {
  return async function observeRequest(c, next) {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    // A client that went away before its answer never reads it: recorded as 499 (nginx's "client closed
    // request"), not as the 504 or 503 its abandoned work may have ended with, so that no 5xx is counted
    // or logged as an error for a request no client was waiting for.
    const gone = c.req.raw.signal.aborted;
    const status = gone ? CLIENT_CLOSED_REQUEST : c.res.status;
    const route = routeOf(c);
    metrics.httpRequests.inc({ method: c.req.method, route, status: String(status) });
    const problem = c.get('problemCode');
    if (problem !== undefined && !gone) metrics.httpProblems.inc({ code: problem });
    metrics.httpDuration.observe({ route }, seconds);
    if (status >= 500 ? logger.isLevelEnabled('error') : logger.isLevelEnabled('info')) {
      const line = {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        route,
        status,
        durationMs: Math.round(seconds * 10_000) / 10,
        userAgent: c.req.header('user-agent'),
      };
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, gone ? 'client went away before the answer' : 'request');
    }
  };
}
