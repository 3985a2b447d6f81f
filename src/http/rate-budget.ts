import type { Context, MiddlewareHandler } from 'hono';
import type { Core } from '../core/index.js';
import {
  type Budget,
  budgetOf,
  type Charge,
  type RateBudgetPolicy,
  type RateLimiterPort,
  restPoints,
} from '../core/keys/rate-budget.js';
import type { Metrics } from '../observability/metrics.js';
import { callerOfRequest } from './bearer.js';
import { addEdgeHeaders } from './edge-headers.js';
import { catalogProblem } from './problem.js';

/**
 * The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-09 (structured fields): the policy
 * (`q` points per `w` seconds, refilled continuously) and the budget left (`r` points, full again in `t`
 * seconds).
 */
export function rateLimitHeaders(budget: Budget, charge: Charge, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Policy': `"default";q=${budget.quota};w=${windowSeconds}`,
    RateLimit: `"default";r=${charge.remaining};t=${charge.resetSeconds}`,
  };
}

/** The client's address, the budget of anonymous callers (the socket's peer; proxies are not trusted). */
export function clientAddressOf(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

/** What the REST rate budget needs. */
export interface RateBudgetOptions {
  core: Core;
  limiter: RateLimiterPort;
  policy: RateBudgetPolicy;
  metrics: Metrics;
}

/**
 * Charges every REST request to its caller's budget (a wrong key counts as anonymous, so guessing keys is
 * limited by address) and answers `429 RATE_LIMITED` with `Retry-After` once it is spent. Every charged
 * answer carries `RateLimit-Policy` and `RateLimit`.
 */
export function rateBudget({ core, limiter, policy, metrics }: RateBudgetOptions): MiddlewareHandler {
  return async function chargeRateBudget(c, next) {
    const caller = await callerOfRequest(c, core);
    const budget = budgetOf(caller === 'invalid' ? null : caller, clientAddressOf(c), policy);
    const points = restPoints(c.req.method);
    const charge = await limiter.charge(budget, points);
    const headers = rateLimitHeaders(budget, charge, policy.windowSeconds);
    if (!charge.allowed) {
      metrics.rateLimited.inc({ interface: 'rest' });
      return catalogProblem(
        c,
        'RATE_LIMITED',
        `The rate budget of ${budget.quota} points per ${policy.windowSeconds} s has ${charge.remaining} left; this request costs ${points}, available again in ${charge.retryAfterSeconds} s.`,
        undefined,
        { ...headers, 'Retry-After': String(charge.retryAfterSeconds) },
      );
    }
    addEdgeHeaders(c, headers);
    await next();
  };
}
