/**
 * Client input errors of GraphQL that come before any field: variables nested deeper than
 * MAX_INPUT_DEPTH, and variables that cannot be coerced to their declared type (./mask-error.ts).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/errors.js';
import { INPUT_DEPTH_MESSAGE, nestsDeeperThan } from '../core/text.js';
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
 * Refuses variables nested deeper than MAX_INPUT_DEPTH before execution, so no walk over them can exhaust
 * the stack. (Every other input rule, U+0000 included, is checked per field: ./input-rules.ts.)
 */
export function useRejectDeepVariables(): Plugin {
  return {
    onExecute({ args }) {
      if (nestsDeeperThan(args.variableValues ?? {})) throw badUserInput(`Variables ${INPUT_DEPTH_MESSAGE}.`);
    },
  };
}
