import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Budget, Charge, RateLimiterPort } from '../core/keys/rate-budget.js';
import { type CellCharge, chargeCell, GCRA_LUA } from './gcra.js';

/** Options of the budget store. */
export interface RateLimiterOptions {
  windowSeconds: number;
  logger: Logger;
  /** `redis://…`: budgets shared by every instance; unset: kept in this process. */
  redisUrl?: string;
  /** Prefix of the Redis keys (tests give each run its own). */
  keyPrefix?: string;
  /** Callers whose budgets one instance keeps in memory; beyond it the longest idle are forgotten. */
  maxMemorySubjects?: number;
  /** The clock of the in-memory store (tests move it). */
  now?: () => number;
  /** How long a charge waits for Redis before it falls back to this instance's budget (default 250 ms). */
  commandTimeoutMs?: number;
  /** After a charge Redis failed or left unanswered, how long charges go to this instance's budget (5 s). */
  breakerMs?: number;
}

/** The budget store with its state, for /health and /metrics. */
export interface RateLimiter extends RateLimiterPort {
  /** `memory`, `redis`, or `degraded` (Redis configured but unreachable: per-instance budgets meanwhile). */
  mode(): 'memory' | 'redis' | 'degraded';
  close(): Promise<void>;
}

type ChargeCell = (subject: string, points: number, quota: number, windowMs: number) => Promise<CellCharge>;

/**
 * Budgets kept in this process: one TAT per caller, the least recently charged forgotten beyond
 * `maxSubjects`. No expiry is needed: a TAT in the past means a full budget, exactly as no entry does.
 * (Per-entry TTLs cost more than they save: lru-cache clears its whole index when the last entry expires.)
 */
function memoryCells(maxSubjects: number, now: () => number): ChargeCell {
  const cells = new LRUCache<string, number>({ max: maxSubjects });
  return async (subject, points, quota, windowMs) => {
    const charge = chargeCell(cells.get(subject), now(), points, quota, windowMs);
    if (charge.allowed) cells.set(subject, charge.tat);
    return charge;
  };
}

type Reply = [allowed: number, remaining: number, fullInMs: number, retryInMs: number];
type Pending = {
  args: [string, number, number, number];
  resolve: (reply: Reply) => void;
  reject: (error: unknown) => void;
};

/**
 * Budgets in Redis: one atomic script call per charge, on the Redis server's clock. The charges made in one
 * turn of the event loop (one per request being served at once) travel as one pipeline, in one write and
 * one read, after the loop's I/O phase: every request still waits for its own answer from Redis.
 */
function redisCells(redis: Redis, keyPrefix: string): ChargeCell {
  redis.defineCommand('chargeBudget', { numberOfKeys: 1, lua: GCRA_LUA });
  let batch: Pending[] = [];
  const flush = () => {
    const sending = batch;
    batch = [];
    // defineCommand adds the method at run time; ioredis' types cannot know it.
    const pipeline = redis.pipeline() as ReturnType<Redis['pipeline']> & {
      chargeBudget(...args: Pending['args']): unknown;
    };
    for (const { args } of sending) pipeline.chargeBudget(...args);
    pipeline.exec().then(
      (results) =>
        sending.forEach(({ resolve, reject }, index) => {
          const [error, reply] = results?.[index] ?? [new Error('no reply from Redis')];
          if (error) reject(error);
          else resolve(reply as Reply);
        }),
      (error: unknown) => {
        for (const { reject } of sending) reject(error);
      },
    );
  };
  return async (subject, points, quota, windowMs) => {
    const [allowed, remaining, fullInMs, retryInMs] = await new Promise<Reply>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ args: [`${keyPrefix}:${subject}`, points, quota, windowMs], resolve, reject });
    });
    return { allowed: allowed === 1, remaining, fullInMs, retryInMs, tat: Number.NaN };
  };
}

/**
 * Creates the budget store: a token bucket per caller that refills continuously (GCRA, see `gcra.ts`),
 * atomic in Redis (one script call per charge, ioredis sends it by its SHA) when `redisUrl` is set, so
 * every instance draws from one budget. When Redis cannot be reached, refuses, or leaves a charge
 * unanswered for `commandTimeoutMs` (a hung connection, a black-holed network), the charge falls back to an
 * in-memory budget of this instance, and a breaker keeps every charge there for `breakerMs` before Redis is
 * tried again: the state is `degraded` meanwhile and logged once. A request never fails, nor waits longer
 * than `commandTimeoutMs`, because of the store.
 */
export function createRateLimiter({
  windowSeconds,
  logger,
  redisUrl,
  keyPrefix = 'rate',
  maxMemorySubjects = 100_000,
  now = Date.now,
  commandTimeoutMs = 250,
  breakerMs = 5000,
}: RateLimiterOptions): RateLimiter {
  const windowMs = windowSeconds * 1000;
  const memory = memoryCells(maxMemorySubjects, now);
  const redis = redisUrl
    ? new Redis(redisUrl, {
        // Fail fast instead of queueing: the in-memory budgets answer while Redis is away.
        enableOfflineQueue: false,
        connectTimeout: 500,
        maxRetriesPerRequest: 1,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      })
    : undefined;
  const shared = redis ? redisCells(redis, keyPrefix) : undefined;

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

  // The breaker: until this instant (the real clock), charges stay in memory without asking Redis.
  let openUntil = 0;
  const cell: ChargeCell = async (subject, points, quota, window) => {
    if (!shared || Date.now() < openUntil) return memory(subject, points, quota, window);
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
      });
      const result = await Promise.race([shared(subject, points, quota, window), late]);
      if (openUntil !== 0) {
        openUntil = 0;
        if (warned) logger.info('Redis answers again: rate budgets are shared again');
        warned = false;
      }
      return result;
    } catch (error) {
      openUntil = Date.now() + breakerMs;
      warn((error as Error).message);
      return memory(subject, points, quota, window);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async charge(budget: Budget, points: number): Promise<Charge> {
      const result = await cell(budget.subject, points, budget.quota, windowMs);
      return {
        allowed: result.allowed,
        remaining: Math.min(budget.quota, result.remaining),
        resetSeconds: Math.max(0, Math.ceil(result.fullInMs / 1000)),
        retryAfterSeconds: Math.max(1, Math.ceil(result.retryInMs / 1000)),
      };
    },
    mode: () => (!redis ? 'memory' : redis.status === 'ready' && Date.now() >= openUntil ? 'redis' : 'degraded'),
    async close() {
      closing = true;
      redis?.disconnect();
    },
  };
}
