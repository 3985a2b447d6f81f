import type { DocumentNode, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import { codeOf } from './mask-error.js';

/**
 * Counts operations by name and outcome when execution ends (logging the codes of failed ones), and
 * every error of every response by code, including those refused before execution (parse, validation,
 * limits, persisted operations), which never reach execution.
 */
export function useOperationMetrics({ metrics, logger }: { metrics: Metrics; logger: Logger }): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result }) {
          const errors = 'errors' in result ? (result.errors ?? []) : [];
          const operation = args.operationName ?? operationNameOf(args.document) ?? 'anonymous';
          metrics.graphqlOperations.inc({ operation, outcome: errors.length > 0 ? 'error' : 'ok' });
          if (errors.length > 0) logger.info({ operation, codes: errors.map(codeOf) }, 'graphql errors');
        },
      };
    },
    onResultProcess({ result }) {
      for (const single of Array.isArray(result) ? result : [result]) {
        const errors = (single as { errors?: readonly GraphQLError[] } | undefined)?.errors ?? [];
        for (const error of errors) metrics.graphqlErrors.inc({ code: codeOf(error) });
      }
    },
  };
}

function operationNameOf(document: DocumentNode): string | undefined {
  for (const definition of document.definitions) {
    if (definition.kind === 'OperationDefinition' && definition.name) return definition.name.value;
  }
  return undefined;
}
