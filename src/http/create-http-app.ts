import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import type { Core } from '../core/index.js';
import { createGraphQL, type GraphQLSettings } from '../graphql/create-graphql.js';
import { createRestApp } from '../rest/create-rest-app.js';
import { contractsRoutes } from './contracts-routes.js';
import { docsRoutes } from './docs-routes.js';
import { type HealthCheck, healthRoutes } from './health-routes.js';
import { clientOf, type Metrics, routeOf } from './metrics.js';
import { problemResponse } from './problem.js';
import { observeRequests } from './request-logger.js';

/** What the public HTTP app is built from. */
export interface HttpAppDeps {
  projectRoot: string;
  core: Core;
  graphql: GraphQLSettings;
  logger: Logger;
  healthChecks: Record<string, HealthCheck>;
  metrics: Metrics;
  /** Runs around every request (the composition root counts requests in flight for a clean shutdown). */
  track?: MiddlewareHandler;
}

/**
 * Builds the public HTTP/1.1 application: `/health`, the published contracts under `/contracts`, the
 * reference page at `/docs`, `/metrics`, REST under `/v1` and GraphQL at `/graphql`. Every response carries
 * `X-Request-Id`.
 */
export async function createHttpApp(deps: HttpAppDeps): Promise<Hono> {
  const app = new Hono();
  if (deps.track) app.use('*', deps.track);
  app.use('*', requestId());
  // One CORS policy for the whole server (Yoga's own is off). Credentials travel in the Authorization
  // header, never in cookies, so any origin may call; the headers clients need are exposed.
  app.use(
    '*',
    cors({
      origin: '*',
      allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'],
      exposeHeaders: [
        'ETag',
        'Location',
        'X-Request-Id',
        'Idempotent-Replayed',
        'Deprecation',
        'Sunset',
        'Link',
        'Allow',
      ],
      maxAge: 600,
    }),
  );
  app.use(
    '*',
    observeRequests({
      logger: deps.logger,
      metrics: deps.metrics,
      routeOf: (c) => routeOf.get(c.req.raw) ?? staticRoute(c.req.path),
    }),
  );
  app.get('/metrics', async (c) => {
    const header = c.req.header('authorization');
    const key = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const caller = key ? await deps.core.apiKeys.authenticate(key).catch(() => undefined) : undefined;
    if (!caller) {
      return problemResponse(
        c,
        {
          status: 401,
          code: 'UNAUTHENTICATED',
          title: 'Authentication required',
          detail: '/metrics needs an admin API key.',
        },
        { 'WWW-Authenticate': 'Bearer realm="order-api"' },
      );
    }
    if (caller.role !== 'admin') {
      return problemResponse(c, {
        status: 403,
        code: 'FORBIDDEN',
        title: 'Forbidden',
        detail: 'Only admins may read /metrics.',
      });
    }
    return c.body(await deps.metrics.registry.metrics(), 200, { 'content-type': deps.metrics.registry.contentType });
  });
  app.route('/health', healthRoutes(deps.healthChecks));
  app.route('/contracts', await contractsRoutes({ projectRoot: deps.projectRoot }));
  app.route('/docs', await docsRoutes());
  const yoga = await createGraphQL({
    projectRoot: deps.projectRoot,
    core: deps.core,
    logger: deps.logger,
    settings: deps.graphql,
    metrics: deps.metrics,
  });
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) =>
    yoga.fetch(c.req.raw, { clientName: clientOf(c.req.header('user-agent')) }),
  );
  app.all('/graphql', (c) =>
    problemResponse(
      c,
      { status: 405, code: 'METHOD_NOT_ALLOWED', title: 'Method not allowed', detail: '/graphql takes GET and POST.' },
      { Allow: 'GET, POST, OPTIONS' },
    ),
  );
  app.route(
    '/v1',
    await createRestApp({ projectRoot: deps.projectRoot, core: deps.core, logger: deps.logger, metrics: deps.metrics }),
  );
  app.notFound((c) =>
    problemResponse(c, { status: 404, code: 'NOT_FOUND', title: 'Not found', detail: `No resource at ${c.req.path}.` }),
  );
  app.onError((error, c) => {
    // Internals stay in the log, tied to the request id the client received.
    deps.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
    return problemResponse(c, {
      status: 500,
      code: 'INTERNAL',
      title: 'Internal server error',
      detail: 'The server failed to answer; the request id identifies the failure in the logs.',
    });
  });
  return app;
}

/** A bounded route label for requests outside the REST contract. */
function staticRoute(path: string): string {
  if (path === '/graphql') return 'graphql';
  for (const prefix of ['/health', '/contracts', '/docs', '/metrics']) if (path.startsWith(prefix)) return prefix;
  return 'unmatched';
}
