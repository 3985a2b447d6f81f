import type { Caller } from '../shared/index.js';

/**
 * The rate budget (docs/decisions.md §10): every caller draws points from one budget, whatever interface
 * it calls. The budget refills continuously, `quota` points per `windowSeconds`, and holds at most `quota`.
 * A caller is its API key; anonymous callers are their client address. REST requests cost by method,
 * GraphQL operations by their calculated cost; health, contracts, docs, metrics and the internal gRPC
 * port are not charged.
 */
export interface RateBudgetPolicy {
  /** Points per window, also the most a budget holds: customer keys, admin keys, anonymous addresses. */
  customer: number;
  admin: number;
  anonymous: number;
  /** The seconds in which a spent budget refills completely, continuously (quota / window points per second). */
  windowSeconds: number;
}

/** Whose budget a request draws from, and how large it is. */
export interface Budget {
  /** A stable, bounded identifier: `key:<id>`, `user:<id>` for the bootstrap key, or `ip:<address>`. */
  subject: string;
  /** Points per window. */
  quota: number;
}

/** The outcome of charging a budget. */
export interface Charge {
  allowed: boolean;
  /** Whole points left now. */
  remaining: number;
  /** Seconds until the budget is full again. */
  resetSeconds: number;
  /** Refused charges: seconds until enough points have refilled for this request (`Retry-After`). */
  retryAfterSeconds: number;
}

/** Where budgets are kept (in memory, or shared by every instance): the rate-limiter port. */
export interface RateLimiterPort {
  /** Takes `points` from `budget` if it has them; a refused charge takes nothing. */
  charge(budget: Budget, points: number): Promise<Charge>;
}

/** REST: a read costs 1 point, a write (any other method) 5. */
export const REST_READ_POINTS = 1;
export const REST_WRITE_POINTS = 5;

/**
 * GraphQL: the operation's cost (the cost limit's model: 2 per object field, 1 per scalar, ×1.5 per
 * nesting level, × `first`) divided by this, rounded up, at least 1. It makes a query cost about what the
 * REST calls for the same data cost: `orders(first: 20) { id user { name } }` costs 175, that is 18
 * points, where REST needs a page of orders and 20 user reads (21 points); `product(id: 1) { name price }`
 * costs 1 point, as `GET /v1/products/1` does.
 */
export const GRAPHQL_COST_PER_POINT = 10;

/** The points a REST request costs. */
export function restPoints(method: string): number {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? REST_READ_POINTS : REST_WRITE_POINTS;
}

/** The points a GraphQL operation of the given calculated cost costs. */
export function graphqlPoints(cost: number): number {
  return Math.max(1, Math.ceil(cost / GRAPHQL_COST_PER_POINT));
}

/** The budget a caller draws from: its key's (by role), or its address's when anonymous. */
export function budgetOf(caller: Caller | null, address: string, policy: RateBudgetPolicy): Budget {
  if (!caller) return { subject: `ip:${address}`, quota: policy.anonymous };
  const quota = caller.rateLimit ?? (caller.role === 'admin' ? policy.admin : policy.customer);
  // The bootstrap admin key (ADMIN_API_KEY) has no key id: it is its user's.
  // A key's rotations draw from one budget (the chain's first key names it).
  const key = caller.keyChainId ?? caller.apiKeyId;
  return { subject: key === null ? `user:${caller.userId}` : `key:${key}`, quota };
}
