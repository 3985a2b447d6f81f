import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** What the HTTP edge hands Yoga when tracing is on: the request's trace id. */
export interface TraceIdContext {
  traceId?: string;
}

/**
 * Adds the request's trace id to every error's `extensions` (`traceId`), as problem documents carry it on
 * REST, so that a client's error report leads to the trace. Nothing when tracing is off.
 */
export function useTraceId(): Plugin<Record<string, unknown>, TraceIdContext> {
  return {
    onResultProcess({ result, setResult, serverContext }) {
      const { traceId } = serverContext;
      if (!traceId || Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      setResult({
        ...result,
        errors: result.errors.map(
          (error) =>
            new GraphQLError(error.message, {
              ...(error.nodes ? { nodes: error.nodes } : {}),
              // Errors found before execution (parse, validation) locate themselves by source positions.
              ...(error.source ? { source: error.source } : {}),
              ...(error.positions ? { positions: error.positions } : {}),
              ...(error.path ? { path: error.path } : {}),
              ...(error.originalError ? { originalError: error.originalError } : {}),
              extensions: { ...error.extensions, traceId },
            }),
        ),
      });
    },
  };
}
