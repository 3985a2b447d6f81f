/**
 * The rate budget over GraphQL: an operation is charged its calculated cost (the cost limit's model,
 * converted to points as in src/core/keys/rate-budget.ts) before it runs. A spent budget refuses the
 * operation with `RATE_LIMITED` (HTTP 429, `Retry-After`) and runs nothing; every charged response carries
 * `extensions.cost` and, through `exchange`, the RateLimit header fields.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { budgetOf, graphqlPoints, type RateBudgetPolicy, type RateLimiterPort } from '../core/keys/rate-budget.js';
import type { Caller } from '../core/shared/caller.js';
import { httpStatusOf } from '../http/http-status.js';
import { rateLimitHeaders } from '../http/rate-budget.js';
import type { Metrics } from '../observability/metrics.js';
import { operationCost } from './query-cost.js';

/** Carries a request's rate headers from the plugin to the HTTP response (filled by the plugin). */
export interface RateExchange {
  clientAddress: string;
  headers?: Record<string, string>;
}

/** What the plugin needs from each request's context. */
interface RateContext {
  caller: Caller | null;
  rateExchange?: RateExchange;
}

/** Options of the plugin. */
export interface UseRateBudgetOptions {
  limiter: RateLimiterPort;
  policy: RateBudgetPolicy;
  metrics: Metrics;
}

/** Creates the plugin (see the file's comment). */
export function useRateBudget<C extends RateContext>({ limiter, policy, metrics }: UseRateBudgetOptions): Plugin<C> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as C;
      const exchange = context.rateExchange;
      if (!exchange) return;
      const cost = operationCost(args.document, args.operationName, args.variableValues);
      const points = graphqlPoints(cost);
      const budget = budgetOf(context.caller, exchange.clientAddress, policy);
      const charge = await limiter.charge(budget, points);
      exchange.headers = rateLimitHeaders(budget, charge, policy.windowSeconds);
      const extension = {
        requestedQueryCost: cost,
        actualQueryCost: charge.allowed ? cost : 0,
        points,
        throttleStatus: {
          maximumAvailable: budget.quota,
          currentlyAvailable: charge.remaining,
          restoreRate: budget.quota / policy.windowSeconds,
          windowSeconds: policy.windowSeconds,
          resetSeconds: charge.resetSeconds,
        },
      };
      if (!charge.allowed) {
        metrics.rateLimited.inc({ interface: 'graphql' });
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `The rate budget of ${budget.quota} points per ${policy.windowSeconds} s has ${charge.remaining} left; this operation costs ${points}, available again in ${charge.retryAfterSeconds} s.`,
              {
                extensions: {
                  code: 'RATE_LIMITED',
                  http: {
                    status: httpStatusOf.RATE_LIMITED,
                    headers: { 'Retry-After': String(charge.retryAfterSeconds) },
                  },
                },
              },
            ),
          ],
          extensions: { cost: extension },
        });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (!('data' in result) && !('errors' in result)) return;
          setResult({ ...result, extensions: { ...result.extensions, cost: extension } });
        },
      };
    },
  };
}
