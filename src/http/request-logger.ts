import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

/** Logs one structured line per request (method, path, status, duration, request id, client). */
export function requestLogger(logger: Logger): MiddlewareHandler {
  return async function logRequest(c, next) {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const line = {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      userAgent: c.req.header('user-agent'),
    };
    if (status >= 500) logger.error(line, 'request failed');
    else logger.info(line, 'request');
  };
}
