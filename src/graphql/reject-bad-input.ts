/**
 * Client input errors of GraphQL that come before any field: variables nested deeper than
 * MAX_INPUT_DEPTH, and variables that cannot be coerced to their declared type (./mask-error.ts).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/shared/errors.js';
import { INPUT_DEPTH_MESSAGE, nestsDeeperThan } from '../core/shared/text.js';
import { httpStatusOf } from '../http/http-status.js';

/** The code of every client input error that the catalog has no more precise code for. */
export const BAD_USER_INPUT: ErrorCode = 'BAD_USER_INPUT';

/** A request-level input error: HTTP 400 under `application/graphql-response+json`, as validation errors are. */
export function badUserInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: BAD_USER_INPUT, ...(field ? { field } : {}), http: { status: httpStatusOf.BAD_USER_INPUT } },
  });
}

/**
 * Refuses, before execution, more than `maxVariables` variables (those the operation does not declare count
 * too, though GraphQL ignores them) and variables nested deeper than MAX_INPUT_DEPTH, so that no walk over
 * them can exhaust the stack. Their size is the body's limit. (Every other input rule, U+0000 included,
 * is checked per field: ./input-rules.ts.)
 */
export function useBoundedVariables(maxVariables: number): Plugin {
  return {
    onParams({ params }) {
      const variables = params.variables;
      if (variables && typeof variables === 'object' && Object.keys(variables).length > maxVariables) {
        throw badUserInput(`A request may send at most ${maxVariables} variables.`);
      }
    },
    onExecute({ args }) {
      if (nestsDeeperThan(args.variableValues ?? {})) throw badUserInput(`Variables ${INPUT_DEPTH_MESSAGE}.`);
    },
  };
}
