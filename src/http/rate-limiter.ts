import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Budget, Charge, RateLimiterPort } from '../core/rate-budget.js';

/** Options of the budget store. */
export interface RateLimiterOptions {
  windowSeconds: number;
  logger: Logger;
  /** `redis://…`: budgets shared by every instance; unset: kept in this process. */
  redisUrl?: string;
  /** Prefix of the Redis keys (tests give each run its own). */
  keyPrefix?: string;
}

/** The budget store with its state, for /health and /metrics. */
export interface RateLimiter extends RateLimiterPort {
  /** `memory`, `redis`, or `degraded` (Redis configured but unreachable: per-instance budgets meanwhile). */
  mode(): 'memory' | 'redis' | 'degraded';
  close(): Promise<void>;
}

/**
 * Creates the budget store on rate-limiter-flexible: fixed windows per caller, atomic in Redis (one Lua
 * call per charge) when `redisUrl` is set, so every instance draws from one budget. When Redis cannot be
 * reached, each charge falls back to an in-memory budget of this instance (the library's insurance
 * limiter), the state turns `degraded` and is logged once; a request never fails because of the store.
 */
export function createRateLimiter({
  windowSeconds,
  logger,
  redisUrl,
  keyPrefix = 'rate',
}: RateLimiterOptions): RateLimiter {
  const redis = redisUrl
    ? new Redis(redisUrl, {
        // Fail fast instead of queueing: the insurance limiter answers while Redis is away.
        enableOfflineQueue: false,
        connectTimeout: 500,
        maxRetriesPerRequest: 1,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
        lazyConnect: false,
      })
    : undefined;
  // Logged once per outage: `close` when the connection is lost, `ready` when it is back.
  let warned = false;
  let closing = false;
  redis?.on('ready', () => {
    if (warned) logger.info('Redis is back: rate budgets are shared again');
    warned = false;
  });
  const warn = (reason: string) => {
    if (!warned && !closing)
      logger.warn({ reason }, 'Redis unreachable: rate budgets are kept per instance until it returns');
    warned = true;
  };
  redis?.on('close', () => warn('connection closed'));
  redis?.on('error', (error: Error) => warn(error.message));

  // One limiter per quota (per-role defaults and per-key overrides share a few sizes).
  const limiters = new Map<number, RateLimiterMemory | RateLimiterRedis>();
  const limiterFor = (quota: number) => {
    let limiter = limiters.get(quota);
    if (!limiter) {
      const memory = new RateLimiterMemory({
        points: quota,
        duration: windowSeconds,
        keyPrefix: `${keyPrefix}:${quota}`,
      });
      limiter = redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points: quota,
            duration: windowSeconds,
            keyPrefix: `${keyPrefix}:${quota}`,
            insuranceLimiter: memory,
          })
        : memory;
      limiters.set(quota, limiter);
    }
    return limiter;
  };

  const asCharge = (result: RateLimiterRes, allowed: boolean, quota: number): Charge => ({
    allowed,
    remaining: Math.max(0, Math.min(quota, result.remainingPoints)),
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  });

  return {
    async charge(budget: Budget, points: number): Promise<Charge> {
      const limiter = limiterFor(budget.quota);
      try {
        return asCharge(await limiter.consume(budget.subject, points), true, budget.quota);
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) {
          // Neither store answered (cannot happen with the insurance limiter): let the request through.
          logger.warn({ err: refusal }, 'rate budget could not be charged');
          return { allowed: true, remaining: budget.quota, resetSeconds: windowSeconds };
        }
        // A refused charge takes nothing: the counter went up by `points`, so give them back.
        await limiter.reward(budget.subject, points).catch(() => undefined);
        const remaining = budget.quota - (refusal.consumedPoints - points);
        return { ...asCharge(refusal, false, budget.quota), remaining: Math.max(0, Math.min(budget.quota, remaining)) };
      }
    },
    mode: () => (!redis ? 'memory' : redis.status === 'ready' ? 'redis' : 'degraded'),
    async close() {
      closing = true;
      redis?.disconnect();
    },
  };
}
