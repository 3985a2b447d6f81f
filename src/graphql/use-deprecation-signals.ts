/**
 * The GraphQL form of the deprecation policy (docs/decisions.md §7): the plugin collects what an operation
 * uses (packages/contract-registry/src/matching/graphql.ts: the fields it selects, the arguments, input fields and enum
 * values it sends) and applies what the core's policy decides:
 * - a withheld field, or a field given a refused argument, resolves to `null` with a `BROWNOUT` error at
 *   its path (./brownouts.ts wraps those resolvers); a refused input field or enum value, which no field
 *   can be nulled for, refuses the whole operation with `BROWNOUT`;
 * - the caller's uses of deprecated items are listed in `extensions.deprecations` with their dates,
 *   reference link and announced brownout windows; a caller with a key also gets
 *   `extensions.deprecatedUsage`, the path of its own usage (so does a whole-operation `BROWNOUT` error).
 */

import type { GraphqlMatcher } from '@order-api/contract-registry/matching';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { deprecatedUsagePath } from '../core/lifecycle/deprecated-usage.js';
import type { DeprecationPolicy } from '../core/lifecycle/deprecation-policy.js';
import type { GraphQLContext } from './context.js';

/** What the plugin needs. */
export interface DeprecationSignalsOptions {
  matcher: GraphqlMatcher;
  policy: DeprecationPolicy;
  /** The URL prefix of the REST version a key's usage link names (the current one). */
  restBase: string;
}

type Context = GraphQLContext & { clientName: string };

/** Counts uses of registry items and lists the caller's deprecated ones in `extensions.deprecations`. */
export function useDeprecationSignals({ matcher, policy, restBase }: DeprecationSignalsOptions): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (matcher.empty) return;
      const context = args.contextValue as Context;
      const uses = matcher.uses(args.schema, args.document, args.variableValues ?? {});
      const caller = { apiKeyId: context.caller?.apiKeyId ?? 0, client: context.clientName };
      const usage = deprecatedUsagePath(caller.apiKeyId, restBase);
      const decision = policy.decide(caller, uses);
      if (decision.withheld.length > 0 || decision.refused.length > 0) {
        context.brownedOut = new Set([...decision.withheld, ...decision.refused].map((item) => item.id));
      }
      const unnullable = decision.refused.filter((item) => item.match.on !== 'argument');
      if (decision.refusal && unnullable.length > 0) {
        policy.settle(decision, false);
        const { code, detail } = decision.refusal.error;
        const extensions = usage ? { code, deprecatedUsage: usage } : { code };
        setResultAndStopExecution({ data: null, errors: [new GraphQLError(detail, { extensions })] });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          // What the operation selected counts once it answered with data; a request error carried none.
          const { signalled } = policy.settle(decision, result.data !== null && result.data !== undefined);
          if (signalled.length === 0) return;
          const deprecations = signalled.map((item) => ({
            item: item.id,
            name: item.name,
            deprecatedOn: item.deprecated,
            sunset: item.sunset,
            reason: item.reason,
            link: item.link,
            brownouts: policy.announced(item.id).map((window) => ({
              startsAt: window.startsAt.toISOString(),
              endsAt: window.endsAt.toISOString(),
            })),
          }));
          setResult({
            ...result,
            extensions: { ...result.extensions, deprecations, ...(usage ? { deprecatedUsage: usage } : {}) },
          });
        },
      };
    },
  };
}
