/**
 * Records the shape of every GraphQL operation a caller runs, queries, mutations and subscriptions alike
 * (docs/decisions.md §13): its signature (./operation-signature.ts, computed once per parsed document) and
 * the input members and enum values that arrived through its variables, as schema coordinates. Its own hook,
 * apart from the deprecation signals, which stop early when no registry item is touched.
 */

import { variableNamesUsed } from '@order-api/contract-registry/matching';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { type OperationSignature, operationSignature } from './operation-signature.js';

/** What the plugin records with. */
export type RecordOperationShape = (
  caller: { apiKeyId: number; client: string },
  shapes: readonly string[],
  signature: OperationSignature,
) => void;

type Context = GraphQLContext & { clientName: string };

interface Args {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null | undefined;
  contextValue: unknown;
  operationName?: string | null | undefined;
}

/** Records each operation as it starts executing (or subscribing). */
export function useShapeRecord(record: RecordOperationShape): Plugin<Context> {
  const recordOf = (args: Args) => {
    const context = args.contextValue as Context;
    const signature = operationSignature(args.document, args.operationName);
    const shapes = [`sig:${signature.hash}`];
    for (const name of variableNamesUsed(args.schema, args.document, args.variableValues ?? {})) shapes.push(name);
    record({ apiKeyId: context.caller?.apiKeyId ?? 0, client: context.clientName }, shapes, signature);
  };
  return {
    onExecute: ({ args }) => recordOf(args as Args),
    onSubscribe: ({ args }) => recordOf(args as Args),
  };
}
