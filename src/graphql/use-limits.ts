/**
 * The document limits (graphql-armor), checked before execution: depth, aliases, tokens and directives
 * (the cost: ./use-cost-limit.ts). Each refusal carries its own code of the catalog; the token limit is checked while parsing.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { ErrorCode } from '../core/shared/errors.js';

/** The limits a document is checked against (GRAPHQL_MAX_* settings). */
export interface DocumentLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
}

/** Directives per document; not configurable. */
const MAX_DIRECTIVES = 50;

/** graphql-armor with the catalog's codes. */
export function useLimits(limits: DocumentLimits) {
  return EnvelopArmorPlugin({
    maxDepth: { n: limits.maxDepth, propagateOnRejection: false, onReject: reject('DEPTH_LIMIT') },
    // The cost limit needs the variables: ./use-cost-limit.ts checks it just before execution.
    costLimit: { enabled: false },
    maxAliases: { n: limits.maxAliases, propagateOnRejection: false, onReject: reject('ALIAS_LIMIT') },
    maxTokens: { n: limits.maxTokens, propagateOnRejection: false, onReject: reject('TOKEN_LIMIT') },
    maxDirectives: { n: MAX_DIRECTIVES, propagateOnRejection: false, onReject: reject('DIRECTIVE_LIMIT') },
    // Field suggestions stay on: the schema is public.
    blockFieldSuggestion: { enabled: false },
  });
}

function reject(code: ErrorCode) {
  return [
    (context: ValidationContext | null, error: GraphQLError) => {
      const refusal = new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code } });
      // The token limit is checked while parsing, before a validation context exists: refuse by throwing.
      if (!context) throw refusal;
      context.reportError(refusal);
    },
  ];
}
