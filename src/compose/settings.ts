/** The public app's settings and its rate limiter, read from the configuration. */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createRateLimiter, type RateLimiter } from '../redis/rate-limiter.js';
import type { Database } from '../store/database.js';
import type { EventWakeups } from '../store/event-wakeups.js';
import type { HttpAppDeps } from './public-app.js';

/** The rate limiter of the rate budgets, when RATE_LIMIT_ENABLED. */
export function createConfiguredRateLimiter(config: Config, logger: Logger): RateLimiter | undefined {
  if (!config.RATE_LIMIT_ENABLED) return undefined;
  return createRateLimiter({
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    logger,
    keyPrefix: config.RATE_LIMIT_KEY_PREFIX,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    breakerMs: config.REDIS_BREAKER_MS,
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  });
}

/** The public app's settings read from the configuration: GraphQL limits, health, rate budgets. */
export function publicAppSettings(
  config: Config,
  db: Database,
  rateLimiter: RateLimiter | undefined,
  wakeups: Pick<EventWakeups, 'degraded'>,
  isServing: () => boolean,
): Pick<
  HttpAppDeps,
  'publicBaseUrl' | 'trustedHosts' | 'graphql' | 'graphiql' | 'healthChecks' | 'degradations' | 'rateBudget'
> {
  return {
    ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    trustedHosts: config.TRUSTED_HOSTS,
    graphiql: config.GRAPHIQL,
    graphql: {
      maxDepth: config.GRAPHQL_MAX_DEPTH,
      maxCost: config.GRAPHQL_MAX_COST,
      maxAliases: config.GRAPHQL_MAX_ALIASES,
      maxTokens: config.GRAPHQL_MAX_TOKENS,
      timeoutMs: config.GRAPHQL_TIMEOUT_MS,
      persistedOnly: config.GRAPHQL_PERSISTED_ONLY,
      introspection: config.GRAPHQL_INTROSPECTION,
      maxBodyBytes: config.GRAPHQL_MAX_BODY_BYTES,
      maxVariables: config.GRAPHQL_MAX_VARIABLES,
    },
    healthChecks: {
      database: async () => {
        await db.query('SELECT 1');
      },
      // Failing from SIGTERM on: the balancer takes the instance out of rotation while it still serves
      // (SHUTDOWN_DELAY_MS), before its drain refuses new gRPC streams.
      serving: async () => {
        if (!isServing()) throw new Error('shutting down');
      },
    },
    degradations: {
      rateLimit: () =>
        rateLimiter?.mode() === 'degraded'
          ? 'Redis (REDIS_URL) is unreachable: rate budgets are kept per instance until it returns'
          : undefined,
      eventWakeups: () => wakeups.degraded(),
    },
    ...(rateLimiter
      ? {
          rateBudget: {
            limiter: rateLimiter,
            policy: {
              customer: config.RATE_LIMIT_CUSTOMER,
              admin: config.RATE_LIMIT_ADMIN,
              anonymous: config.RATE_LIMIT_ANONYMOUS,
              windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
            },
          },
        }
      : {}),
  };
}
