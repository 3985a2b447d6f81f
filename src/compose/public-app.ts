import type { DeprecationRegistry } from '@order-api/contract-registry';
import { type Context, type Handler, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import type { Core } from '../core/index.js';
import { requireMetricsReader } from '../core/keys/monitoring.js';
import type { RateBudgetPolicy, RateLimiterPort } from '../core/keys/rate-budget.js';
import type { DeprecationPolicy } from '../core/lifecycle/deprecation-policy.js';
import type { ShapeRecorder } from '../core/lifecycle/shapes/shape-recorder.js';
import { createGraphQL, type GraphQLSettings } from '../graphql/create-graphql.js';
import type { SubscriptionSettings } from '../graphql/subscriptions.js';
import { callerFromAuthorization, unauthenticatedResponse } from '../http/bearer.js';
import { chain } from '../http/chain.js';
import { contractsRoutes } from '../http/contracts-routes.js';
import { docsRoutes } from '../http/docs-routes.js';
import { addEdgeHeaders, requestIdAndEdgeHeaders } from '../http/edge-headers.js';
import { createGraphiqlPage, GRAPHIQL_ASSETS } from '../http/graphiql-page.js';
import { type HealthCheck, healthRoutes } from '../http/health-routes.js';
import { graphqlEndpoint } from './graphql-endpoint.js';
import '../http/context-variables.js';
import { catalogProblem, problemOnError } from '../http/problem.js';
import { type GrpcCodeName, problemPages } from '../http/problem-pages.js';
import { rateBudget } from '../http/rate-budget.js';
import { pathVersion } from '../http/version-mounts.js';
import type { Metrics } from '../observability/metrics.js';
import { observeRequests } from '../observability/observe-requests.js';
import { traceRequests } from '../observability/trace-requests.js';
import { type RestContract, readRestContract } from '../rest/contract.js';
import { createRestApp, type VersionHandlers } from '../rest/create-rest-app.js';

/** What the public HTTP app is built from. */
export interface HttpAppDeps {
  projectRoot: string;
  core: Core;
  graphql: GraphQLSettings;
  /** Serves GraphQL subscriptions over the event feed. */
  subscriptions?: SubscriptionSettings;
  logger: Logger;
  healthChecks: Record<string, HealthCheck>;
  /** GRAPHIQL: whether `GET /graphql` from a browser gets GraphiQL (default true). */
  graphiql?: boolean;
  /** Dependencies that can be degraded without failing readiness: name → what is degraded, or undefined. */
  degradations?: Record<string, () => string | undefined>;
  metrics: Metrics;
  /** Deprecated and watched items (generated/deprecations.json); none when absent. */
  registry?: DeprecationRegistry;
  /** The core's deprecation policy, counting uses per caller. */
  deprecationPolicy?: DeprecationPolicy;
  /** PUBLIC_BASE_URL: where clients reach the server, when a proxy stands in front of it. */
  publicBaseUrl?: string;
  /** TRUSTED_HOSTS: hosts a request's `Host` may name in links, without PUBLIC_BASE_URL (default: loopback). */
  trustedHosts?: readonly string[];
  /** The rate budget of REST and GraphQL callers; absent when RATE_LIMIT_ENABLED is false. */
  rateBudget?: { limiter: RateLimiterPort; policy: RateBudgetPolicy };
  /** The gRPC status name of a catalog code, for the problem pages (the gRPC transport's table). */
  grpcCodeName?: GrpcCodeName;
  /** The public key of the usage exports' signatures (SPKI PEM), published at `/contracts/evidence-key`. */
  evidenceKey?: string;
  /** Runs around every request (the composition root counts requests in flight for a clean shutdown). */
  track?: MiddlewareHandler;
  /** When tracing is on: names each request's server span by route and keeps its trace id for problems. */
  tracing?: boolean;
  /** Handlers of operations a later version adds (`createRestApp`'s `versionHandlers`). */
  versionHandlers?: VersionHandlers;
  /** The request-shape record, fed by REST and GraphQL (docs/decisions.md §13). */
  shapes?: ShapeRecorder;
}

const missing = (c: Context) => catalogProblem(c, 'NOT_FOUND', `No resource at ${c.req.path}.`);

/**
 * The public port, composed: mounts the REST and GraphQL transports and the shared edge routes (src/http)
 * into one Hono app. It lives outside src/http so that the transports may use the edge helpers without a
 * folder-level loop. Builds the public HTTP/1.1 application: `/health`, the published contracts under `/contracts`, the
 * reference page at `/docs`, `/metrics`, REST under each version the contract declares and GraphQL at `/graphql`. Every response carries
 * `X-Request-Id`.
 */
export async function createHttpApp(deps: HttpAppDeps): Promise<Hono> {
  const app = new Hono();
  const onError = problemOnError(deps.logger);
  const trustedHosts = new Set(deps.trustedHosts ?? ['localhost', '127.0.0.1', '[::1]']);
  const contract = await readRestContract(deps.projectRoot);
  // The edge of every route, in order, run as one chain (src/http/chain.ts).
  app.use(
    '*',
    chain(
      [
        ...(deps.track ? [deps.track] : []),
        ...(deps.tracing ? [traceRequests({ routeOf: spanRoute(contract) })] : []),
        requestIdAndEdgeHeaders(),
        (c, next) => {
          c.set('publicBaseUrl', deps.publicBaseUrl);
          c.set('trustedHosts', trustedHosts);
          return next();
        },
        corsPolicy(),
        observeRequests({
          logger: deps.logger,
          metrics: deps.metrics,
          routeOf: (c) => c.get('route') ?? staticRoute(c.req.path),
        }),
      ],
      onError,
    ),
  );
  app.get('/metrics', metricsEndpoint(deps));
  app.route('/health', healthRoutes(deps.healthChecks, deps.degradations));
  app.route('/problems', problemPages(deps.grpcCodeName));
  app.route(
    '/contracts',
    await contractsRoutes({
      projectRoot: deps.projectRoot,
      deprecations: () => deps.core.deprecations.published(),
      ...(deps.evidenceKey ? { evidenceKey: deps.evidenceKey } : {}),
    }),
  );
  const currentBase = contract.mounts.prefix(contract.mounts.current);
  app.route('/docs', await docsRoutes(deps.registry, deps.core.brownouts.announced, contract.mounts));
  const yoga = await createGraphQL({
    restBase: currentBase,
    projectRoot: deps.projectRoot,
    core: deps.core,
    logger: deps.logger,
    settings: deps.graphql,
    metrics: deps.metrics,
    ...(deps.rateBudget ? { rateBudget: deps.rateBudget } : {}),
    ...(deps.subscriptions ? { subscriptions: deps.subscriptions } : {}),
    ...(deps.shapes ? { shapes: deps.shapes } : {}),
    ...signalDeps(deps),
  });
  const graphiql = deps.graphiql === false ? undefined : await createGraphiqlPage();
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', graphqlEndpoint(yoga, deps.rateBudget !== undefined, graphiql));
  app.get(`${GRAPHIQL_ASSETS}/:file`, (c) => graphiql?.asset(c, c.req.param('file')) ?? missing(c));
  app.all('/graphql', (c) =>
    catalogProblem(c, 'METHOD_NOT_ALLOWED', '/graphql takes GET and POST.', undefined, { Allow: 'GET, POST, OPTIONS' }),
  );
  // One REST app, mounted under every version the contract declares: one pipeline, one rate budget.
  const rest = createRestApp({
    contract,
    core: deps.core,
    ...signalDeps(deps),
    ...(deps.shapes ? { shapes: deps.shapes } : {}),
    ...(deps.rateBudget
      ? { admission: rateBudget({ core: deps.core, metrics: deps.metrics, ...deps.rateBudget }) }
      : {}),
    ...(deps.versionHandlers ? { versionHandlers: deps.versionHandlers } : {}),
    onError,
  });
  for (const version of contract.mounts.versions) app.route(contract.mounts.prefix(version), rest);
  app.notFound(missing);
  // Domain errors of the REST steps become problem documents where they are thrown; anything else is
  // logged with the request id the client received and answered 500.
  app.onError(onError);
  return app;
}

/** `/metrics` in the Prometheus text format, for admins. */
function metricsEndpoint({ core, metrics }: HttpAppDeps): Handler {
  return async (c) => {
    const caller = await callerFromAuthorization(core, c.req.header('authorization'));
    if (!caller || caller === 'invalid') return unauthenticatedResponse(c, caller ? 'wrong-key' : 'missing');
    requireMetricsReader(caller);
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  };
}

const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Link',
  'Brownout',
  'Allow',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
].join(',');

/**
 * One CORS policy for the whole server (Yoga's own is off). Credentials travel in the Authorization
 * header, never in cookies, so any origin may call; the headers clients need are exposed. Preflights are
 * Hono's `cors`; every other answer carries the two headers as edge headers (src/http/edge-headers.ts),
 * written with the answer. (Hono's `cors` sets them on `c.res` before the handler, which makes Hono
 * rebuild the handler's response as a web-stream Response that @hono/node-server writes in several
 * syscalls instead of one.)
 */
function corsPolicy(): MiddlewareHandler {
  const preflight = cors({
    origin: '*',
    allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposeHeaders: EXPOSED_HEADERS.split(','),
    maxAge: 600,
  });
  const headers = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
  return function applyCors(c, next) {
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    addEdgeHeaders(c, headers);
    return next();
  };
}

function signalDeps({ registry, deprecationPolicy }: HttpAppDeps) {
  return { ...(registry ? { registry } : {}), ...(deprecationPolicy ? { policy: deprecationPolicy } : {}) };
}

/** The route of a server span: the REST operation's path template (`/v2/orders/{orderId}`), else the static route. */
function spanRoute(contract: RestContract): (c: Context) => string {
  return (c) => {
    const operationId = c.get('route');
    // An operation an older version serves for a newer one is named under the version the request named.
    if (operationId) return contract.mounts.rebase(contract.operation(operationId).path, pathVersion(c.req.path) ?? '');
    const route = staticRoute(c.req.path);
    return route === 'graphql' ? '/graphql' : route;
  };
}

/** A bounded route label for requests outside the REST contract. */
function staticRoute(path: string): string {
  if (path === '/graphql') return 'graphql';
  for (const prefix of ['/health', '/contracts', '/docs', '/metrics', '/problems', GRAPHIQL_ASSETS])
    if (path.startsWith(prefix)) return prefix;
  return 'unmatched';
}
