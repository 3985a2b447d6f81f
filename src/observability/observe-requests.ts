import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';

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
    const status = c.res.status;
    const route = routeOf(c);
    metrics.httpRequests.inc({ method: c.req.method, route, status: String(status) });
    const problem = c.get('problemCode');
    if (problem !== undefined) metrics.httpProblems.inc({ code: problem });
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
      else logger.info(line, 'request');
    }
  };
}
