import path from 'node:path';
import { pino } from 'pino';
import type { Core } from '../../src/core/index.js';
import { createGraphQL, type GraphQLSettings } from '../../src/graphql/create-graphql.js';
import { createMetrics } from '../../src/observability/metrics.js';

/** The documented defaults of the GraphQL endpoint. */
export const defaultGraphQLSettings: GraphQLSettings = {
  maxDepth: 10,
  maxCost: 5000,
  maxAliases: 15,
  maxTokens: 3000,
  timeoutMs: 5000,
  persistedOnly: false,
  introspection: true,
  maxBodyBytes: 1_048_576,
  maxVariables: 100,
};

/** A Yoga instance over a core, called in-process through `yoga.fetch`. */
export async function graphqlEndpoint(
  core: Core,
  settings: Partial<GraphQLSettings> = {},
  { projectRoot = path.resolve(import.meta.dirname, '../..'), metrics = createMetrics() } = {},
) {
  const yoga = await createGraphQL({
    projectRoot,
    core,
    logger: pino({ level: 'silent' }),
    settings: { ...defaultGraphQLSettings, ...settings },
    metrics,
    restBase: '/v1',
  });
  return async function run(
    query: string,
    options: { variables?: Record<string, unknown>; key?: string; extensions?: Record<string, unknown> } = {},
  ) {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      },
      body: JSON.stringify({ query, variables: options.variables, extensions: options.extensions }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        data?: Record<string, any> | null;
        errors?: Array<{ message: string; path?: unknown[]; extensions?: { code?: string } }>;
      },
    };
  };
}
