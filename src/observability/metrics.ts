import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What a connection pool reports, read when /metrics is scraped. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The client a request comes from, for usage counts: the first `name/version` token of its User-Agent. */
export function clientOf(userAgent: string | undefined | null): string {
  if (!userAgent) return 'unknown';
  let client = clients.get(userAgent);
  if (client === undefined) {
    const token = userAgent.trim().split(/\s+/)[0] ?? '';
    client = /^[\w.-]{1,40}\/[\w.+-]{1,20}$/.test(token) ? token : 'unknown';
    // A bounded memo: callers send a few user-agents over and over; a flood of new ones starts it afresh.
    if (clients.size >= 1_000) clients.clear();
    clients.set(userAgent, client);
  }
  return client;
}

const clients = new Map<string, string>();

/** The labels of a gRPC method's series. */
type GrpcLabels = { grpc_service: string; grpc_method: string };

/** The server's Prometheus metrics, one registry per server (tests run several in one process). */
export type Metrics = ReturnType<typeof createMetrics>;

/** Creates the metrics; `/metrics` (admin key) exposes them in the Prometheus text format. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    ...watchedGauges(registry),
    ...recordMetrics(registry),
    ...grpcMetrics(registry),
    rateLimited: new Counter({
      name: 'rate_limited_total',
      help: "Requests refused because the caller's rate budget was spent, by interface (rest, graphql).",
      labelNames: ['interface'] as const,
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route (operationId where the contract names one) and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route.',
      labelNames: ['route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    graphqlOperations: new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations by name and outcome, counted from the errors in the response body (not the HTTP status).',
      labelNames: ['operation', 'outcome'] as const,
      registers: [registry],
    }),
    graphqlErrors: new Counter({
      name: 'graphql_errors_total',
      help: 'GraphQL errors by extensions.code.',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    // Labels stay bounded (registry items × three kinds); per-caller counts live in the database.
    deprecatedUsage: new Counter({
      name: 'deprecated_usage_total',
      help: 'Uses of deprecated and watched items (generated/deprecations.json) by item id and kind (use; replacement for a watched field; brownout for a request refused in a brownout window).',
      labelNames: ['item', 'kind'] as const,
      registers: [registry],
    }),
    httpProblems: new Counter({
      name: 'http_problems_total',
      help: 'REST answers with a problem document, by its code: what each limit refused (PAYLOAD_TOO_LARGE, WEBHOOK_ENDPOINT_LIMIT, RATE_LIMITED, …), as graphql_errors_total counts GraphQL errors.',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    webhookDeliveriesDeferred: new Counter({
      name: 'webhook_deliveries_deferred_total',
      help: "Webhook deliveries put back untried because their endpoint owner's delivery budget (WEBHOOK_DELIVERIES_PER_MINUTE) was spent; each is tried once the budget has a point again.",
      registers: [registry],
    }),
    deprecationUsageDropped: new Counter({
      name: 'deprecation_usage_dropped_total',
      help: "Uses of deprecated and watched items that an instance's usage buffer dropped because it was full (USAGE_MAX_ENTRIES), by item id; the day they fell on is not a measured one for that item.",
      labelNames: ['item'] as const,
      registers: [registry],
    }),
  };
}

/** Gauges read when /metrics is scraped: the database pool and the rate budget store. */
/** What the request-shape record counts of itself. */
function recordMetrics(registry: Registry) {
  return {
    requestShapesDropped: new Counter({
      name: 'request_shapes_dropped_total',
      help: 'Request shapes the shape record dropped because a cap was reached (SHAPES_MAX_ENTRIES, SHAPES_MAX_ENTRIES_PER_KEY, the signature bytes or SHAPES_MAX_SIGNATURES), by protocol.',
      labelNames: ['protocol'] as const,
      registers: [registry],
    }),
  };
}

function watchedGauges(registry: Registry) {
  let poolStats: (() => PoolStats | undefined) | undefined;
  let rateLimiterMode: (() => 'memory' | 'redis' | 'degraded') | undefined;
  const poolGauge = (name: string, help: string, pick: (stats: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const stats = poolStats?.();
        if (stats) this.set(pick(stats));
      },
    });
  poolGauge('db_pool_connections', 'Connections in the PostgreSQL pool (DATABASE_URL only).', (s) => s.total);
  poolGauge('db_pool_idle_connections', 'Idle connections in the PostgreSQL pool.', (s) => s.idle);
  poolGauge('db_pool_waiting_requests', 'Queries waiting for a pool connection.', (s) => s.waiting);
  new Gauge({
    name: 'rate_limit_store_degraded',
    help: 'Whether rate budgets fell back to per-instance memory because Redis (REDIS_URL) is unreachable.',
    registers: [registry],
    collect() {
      this.set(rateLimiterMode?.() === 'degraded' ? 1 : 0);
    },
  });
  return {
    /** Reports the database pool on every scrape (the composition root passes the pool's counts). */
    watchPool(read: () => PoolStats | undefined) {
      poolStats = read;
    },
    /** Reports the rate budget store on every scrape: 1 while Redis is configured but unreachable. */
    watchRateLimiter(read: () => 'memory' | 'redis' | 'degraded') {
      rateLimiterMode = read;
    },
  };
}

/** The internal port's series: calls by method and code (as go-grpc-prometheus), and their timings. */
function grpcMetrics(registry: Registry) {
  // The OK answers of each gRPC method, counted as a plain number per call and added to the counter
  // when it is read (a scrape): a call pays one increment rather than prom-client's label lookup.
  const answered: Array<{ labels: GrpcLabels; count: number }> = [];
  const grpcHandled = new Counter({
    name: 'grpc_server_handled_total',
    help: 'gRPC calls completed on the internal port, by service, method and status code (as go-grpc-prometheus).',
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'] as const,
    registers: [registry],
    collect() {
      for (const tally of answered) {
        if (tally.count === 0) continue;
        this.inc({ ...tally.labels, grpc_code: 'OK' }, tally.count);
        tally.count = 0;
      }
    },
  });
  return {
    grpcHandled,
    /** The tally of one method's OK answers: add one per call (`count += 1`); the counter takes it when read. */
    grpcAnswered(labels: GrpcLabels): { count: number } {
      const tally = { labels, count: 0 };
      answered.push(tally);
      return tally;
    },
    grpcHandlingSeconds: new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'gRPC call duration on the internal port, by service and method.',
      labelNames: ['grpc_service', 'grpc_method'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}
