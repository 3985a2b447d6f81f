/**
 * Client input errors of GraphQL, answered as the client's fault: a NUL character in any argument or
 * variable (PostgreSQL cannot store U+0000), variables nested deeper than MAX_INPUT_DEPTH, and variables
 * that cannot be coerced to their declared type.
 */
import { type DocumentNode, GraphQLError, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/errors.js';
import { findNulCharacter, INPUT_DEPTH_MESSAGE, NUL_CHARACTER_MESSAGE, nestsDeeperThan } from '../core/text.js';
import { httpStatusOf } from '../http/http-status.js';

/** The code of every client input error that the catalog has no more precise code for. */
export const BAD_USER_INPUT: ErrorCode = 'BAD_USER_INPUT';

/** A request-level input error: HTTP 400 under `application/graphql-response+json`, as validation errors are. */
export function badUserInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: BAD_USER_INPUT, ...(field ? { field } : {}), http: { status: httpStatusOf.BAD_USER_INPUT } },
  });
}

/** Per parsed document (Yoga's parser cache hands the same DocumentNode to every request with the same text). */
const literalsChecked = new WeakMap<DocumentNode, string | null>();

/** The argument path (e.g. `createOrder.input.note`) of the first string literal holding U+0000. */
function nulInLiterals(document: DocumentNode): string | undefined {
  let found = literalsChecked.get(document);
  if (found === undefined) {
    found = firstNulInLiterals(document) ?? null;
    literalsChecked.set(document, found);
  }
  return found ?? undefined;
}

function firstNulInLiterals(document: DocumentNode): string | undefined {
  let found: string | undefined;
  const names: string[] = [];
  visit(document, {
    Field: { enter: (node) => void names.push(node.name.value), leave: () => void names.pop() },
    Argument: { enter: (node) => void names.push(node.name.value), leave: () => void names.pop() },
    ObjectField: { enter: (node) => void names.push(node.name.value), leave: () => void names.pop() },
    StringValue(node) {
      if (found === undefined && node.value.includes('\u0000')) found = names.join('.');
    },
  });
  return found;
}

/** Refuses U+0000 in the document's string literals and in the variables, before execution. */
export function useRejectNulCharacters(): Plugin {
  return {
    onExecute({ args }) {
      if (nestsDeeperThan(args.variableValues ?? {})) throw badUserInput(`Variables ${INPUT_DEPTH_MESSAGE}.`);
      const inVariables = findNulCharacter(args.variableValues ?? {});
      const field =
        inVariables !== undefined
          ? `$${inVariables.slice(1).replaceAll('/', '.')}`
          : nulInLiterals(args.document as DocumentNode);
      if (field !== undefined) throw badUserInput(`${field} ${NUL_CHARACTER_MESSAGE}.`, field);
    },
  };
}
