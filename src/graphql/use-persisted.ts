/**
 * Persisted operations from the generated manifest (generated/graphql/persisted-operations.json): by
 * `documentId` (body or query string) or the Apollo `persistedQuery.sha256Hash` extension. With
 * GRAPHQL_PERSISTED_ONLY, other documents are refused.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { ErrorCode } from '../core/shared/errors.js';
import { httpStatusOf } from '../http/http-status.js';

/** The plugin over a manifest of document ids to documents. */
// biome-ignore lint/suspicious/noExplicitAny: the plugin's own constraint on its context
export function usePersisted<Context extends Record<string, any>>(
  manifest: Record<string, string>,
  persistedOnly: boolean,
) {
  return usePersistedOperations<Context>({
    getPersistedOperation: (key) => manifest[key] ?? null,
    allowArbitraryOperations: !persistedOnly,
    extractPersistedOperationId: (params, request) => {
      const documentId =
        (params as { documentId?: unknown }).documentId ?? new URL(request.url).searchParams.get('documentId');
      if (typeof documentId === 'string') return documentId;
      const hash = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery
        ?.sha256Hash;
      return typeof hash === 'string' ? hash : null;
    },
    customErrors: {
      notFound: {
        message: 'Unknown persisted operation.',
        extensions: {
          code: 'PERSISTED_QUERY_NOT_FOUND' satisfies ErrorCode,
          http: { status: httpStatusOf.PERSISTED_QUERY_NOT_FOUND },
        },
      },
      persistedQueryOnly: {
        message: 'Only persisted operations are accepted here.',
        extensions: {
          code: 'PERSISTED_QUERY_ONLY' satisfies ErrorCode,
          http: { status: httpStatusOf.PERSISTED_QUERY_ONLY },
        },
      },
      keyNotFound: {
        message: 'Send documentId or a persisted query hash.',
        // A request that names no document at all is malformed (400), not a refused document (403).
        extensions: { code: 'PERSISTED_QUERY_ONLY' satisfies ErrorCode, http: { status: 400 } },
      },
    },
  });
}
