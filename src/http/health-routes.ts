import { Hono } from 'hono';

/** A named readiness probe; it resolves when its dependency answers and throws when it does not. */
export type HealthCheck = () => Promise<void>;

/**
 * Probes (unversioned, no credentials). Readiness, `GET /health` and `GET /health/ready`: 200 with
 * `status: ok` when every check passes, 503 with the failing checks named otherwise, so a load balancer
 * takes the instance out of rotation. Liveness, `GET /health/live`: 200 while the process answers at all,
 * checking nothing outside it (a database outage is not cured by a restart).
 */
export function healthRoutes(checks: Record<string, HealthCheck>): Hono {
  const app = new Hono();
  app.get('/live', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ status: 'ok', checks: {} }, 200);
  });
  app.on('GET', ['/', '/ready'], async (c) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          return [name, 'ok'] as const;
        } catch {
          return [name, 'failing'] as const;
        }
      }),
    );
    const healthy = results.every(([, state]) => state === 'ok');
    c.header('Cache-Control', 'no-store');
    return c.json({ status: healthy ? 'ok' : 'unavailable', checks: Object.fromEntries(results) }, healthy ? 200 : 503);
  });
  return app;
}
