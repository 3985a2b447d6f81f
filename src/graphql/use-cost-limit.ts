/**
 * The cost limit (`COST_LIMIT`), refused as a validation error like the other limits but with the
 * variables in hand: graphql-armor's cost rule sees only literals, so `first: $n` could ask for any size.
 * The cost is the rate budget's (./query-cost.ts), a list counted at the size it is served (cut to 100).
 * It is checked after validation, outside the rules: Yoga caches a document's validation result, and the
 * cost of one document changes with its variables.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { operationCost } from './query-cost.js';

/** What Yoga keeps of the request in the context: the operation's name and variables. */
interface ParamsContext {
  params?: { operationName?: string | null; variables?: Record<string, unknown> | null };
}

/** Refuses, before anything runs, an operation whose cost is above `maxCost`. */
export function useCostLimit(maxCost: number): Plugin {
  return {
    onValidate({ params, context }) {
      return ({ valid, setResult }) => {
        if (!valid) return;
        const { operationName, variables } = (context as ParamsContext).params ?? {};
        const cost = operationCost(params.documentAST, operationName, variables);
        if (cost <= maxCost) return;
        // `spec`: the status of a validation error, 400 for application/graphql-response+json and 200 for
        // application/json, as Yoga marks the errors of its own validation.
        const refusal = new GraphQLError(`Query Cost limit of ${maxCost} exceeded, found ${cost}.`, {
          extensions: { code: 'COST_LIMIT', http: { spec: true, status: 400 } },
        });
        setResult([refusal]);
      };
    },
  };
}
