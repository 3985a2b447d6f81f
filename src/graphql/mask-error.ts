import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { DomainError } from '../core/shared/errors.js';
import { httpStatusOf } from '../http/http-status.js';
import { BAD_USER_INPUT } from './reject-bad-input.js';

/** One mapping from failures to GraphQL errors: catalog codes kept, anything unexpected masked. */
export function maskError(error: unknown, logger: Logger): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const located = error instanceof GraphQLError ? error : undefined;
  if (original instanceof DomainError) {
    return new GraphQLError(original.detail, {
      ...(located?.nodes ? { nodes: located.nodes } : {}),
      ...(located?.path ? { path: located.path } : {}),
      extensions: {
        code: original.code,
        ...original.members,
        ...(original.violations ? { violations: original.violations } : {}),
        ...(original.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: original.retryAfterSeconds }),
      },
    });
  }
  if (original instanceof GraphQLError && original.extensions?.code) {
    if (original === located) return located;
    return new GraphQLError(original.message, {
      ...(located?.nodes ? { nodes: located.nodes } : {}),
      ...(located?.path ? { path: located.path } : {}),
      extensions: original.extensions,
    });
  }
  // Variables that are missing or do not coerce to their type (graphql-js reports them without a path,
  // before any resolver runs) are the client's error, not the server's.
  if (located && !located.path && /^Variable "\$/.test(located.message)) {
    return new GraphQLError(located.message, {
      ...(located.nodes ? { nodes: located.nodes } : {}),
      extensions: { code: BAD_USER_INPUT, http: { status: httpStatusOf.BAD_USER_INPUT } },
    });
  }
  if (located && !located.originalError) return located;
  logger.error({ err: original }, 'graphql resolver failed');
  return new GraphQLError('Unexpected error.', {
    ...(located?.nodes ? { nodes: located.nodes } : {}),
    ...(located?.path ? { path: located.path } : {}),
    extensions: { code: 'INTERNAL' },
  });
}

/** The catalog code of an error as the client will see it (errors are masked after execution). */
export function codeOf(error: GraphQLError): string {
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  const original = error.originalError;
  if (original instanceof DomainError) return original.code;
  if (original instanceof GraphQLError && typeof original.extensions?.code === 'string')
    return original.extensions.code;
  return 'INTERNAL';
}
