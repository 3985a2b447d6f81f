/**
 * GraphQL at `/graphql` with graphql-yoga: the schema of contracts/schema.graphql with the typed
 * resolvers, per-request loaders, limits checked before execution, an execution time-out that answers
 * with partial data and persisted operations from the generated manifest. (GraphiQL is the public port's
 * static page: src/http/graphiql-page.ts.)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { graphqlMatcher } from '@order-api/contract-registry/matching';
import { GraphQLError } from 'graphql';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Caller, Core } from '../core/index.js';
import { createDeprecationPolicy, type DeprecationPolicy } from '../core/lifecycle/deprecation-policy.js';
import type { ShapeRecorder } from '../core/lifecycle/shapes/shape-recorder.js';
import { unauthenticated } from '../core/shared/caller.js';
import { bearerChallenge, callerFromAuthorization } from '../http/bearer.js';
import { httpStatusOf } from '../http/http-status.js';
import type { Metrics } from '../observability/metrics.js';
import { withBrownouts } from './brownouts.js';
import { createLoaders, type GraphQLContext } from './context.js';
import { fieldsTakingArguments, readInputRules, withInputRules } from './input-rules.js';
import { maskError } from './mask-error.js';
import { useBoundedVariables } from './reject-bad-input.js';
import { resolvers } from './resolvers.js';
import { declaredScopes, withScopes } from './scopes.js';
import type { SubscriptionSettings } from './subscriptions.js';
import { useCostLimit } from './use-cost-limit.js';
import { useDeprecationSignals } from './use-deprecation-signals.js';
import { useIntrospectionSwitch } from './use-introspection-switch.js';
import { useLimits } from './use-limits.js';
import { useOperationMetrics } from './use-operation-metrics.js';
import { usePersisted } from './use-persisted.js';
import { type RateExchange, type UseRateBudgetOptions, useRateBudget } from './use-rate-budget.js';
import { useRequestBodyLimit } from './use-request-body-limit.js';
import { useShapeRecord } from './use-shape-record.js';
import { TimeBudget, useTimeBudget, withTimeout } from './use-time-budget.js';
import { type TraceIdContext, useTraceId } from './use-trace-id.js';

/** Limits and switches of the GraphQL endpoint (defaults documented in docs/configuration.md and the schema). */
export interface GraphQLSettings {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
  timeoutMs: number;
  persistedOnly: boolean;
  introspection: boolean;
  /** The largest request body, in bytes (GRAPHQL_MAX_BODY_BYTES; REST's 1 MiB by default). */
  maxBodyBytes: number;
  /** The most variables one request may send, used or not (GRAPHQL_MAX_VARIABLES). */
  maxVariables: number;
}

/** What the GraphQL endpoint is built from. */
export interface GraphQLDeps {
  projectRoot: string;
  core: Core;
  logger: Logger;
  settings: GraphQLSettings;
  metrics: Metrics;
  /** The rate budget; absent when RATE_LIMIT_ENABLED is false. */
  rateBudget?: Omit<UseRateBudgetOptions, 'metrics'>;
  /** Deprecated and watched items (generated/deprecations.json); none when absent. */
  registry?: DeprecationRegistry;
  /** The core's deprecation policy, counting per caller (default: over the core's windows, counting nowhere). */
  policy?: DeprecationPolicy;
  /** Serves `Subscription` (over the event feed); without it a subscription fails. */
  subscriptions?: SubscriptionSettings;
  /** The URL prefix of the current REST version (the mount table's), where a key's usage is linked. */
  restBase: string;
  /** The request-shape record (docs/decisions.md §13); nothing is recorded without it. */
  shapes?: ShapeRecorder;
}

interface ServerContext extends TraceIdContext {
  clientName?: string;
  /** Present when the rate budget is on: the client's address in, the RateLimit headers out. */
  rateExchange?: RateExchange;
}

type Context = GraphQLContext & { clientName: string; rateExchange?: RateExchange };

/** Builds the Yoga instance; mount it with `app.on(['GET','POST','OPTIONS'], '/graphql', …)`. */
export async function createGraphQL({
  projectRoot,
  core,
  logger,
  settings,
  metrics,
  rateBudget,
  registry = { items: [] },
  policy = createDeprecationPolicy({ brownouts: core.brownouts }),
  subscriptions,
  restBase,
  shapes,
}: GraphQLDeps) {
  const { typeDefs, manifest, inputRules } = await readSchemaAndManifest(projectRoot);
  // The scope of a field is checked before its brownout, and both before its input rules: a key without
  // the scope learns nothing more.
  const checked = withInputRules(resolvers as never, inputRules, fieldsTakingArguments(typeDefs));
  const schema = createSchema<Context>({
    typeDefs,
    resolvers: withTimeout(
      withScopes(withBrownouts(checked, registry, core.brownouts), declaredScopes(typeDefs)),
    ) as never,
  });

  const plugins: Array<Plugin<Context>> = [
    useLimits(settings) as Plugin<Context>,
    useCostLimit(settings.maxCost) as Plugin<Context>,
    useBoundedVariables(settings.maxVariables) as Plugin<Context>,
    usePersisted<Context>(manifest, settings.persistedOnly),
    useTimeBudget() as Plugin<Context>,
    useOperationMetrics({ metrics, logger }) as Plugin<Context>,
    useIntrospectionSwitch(settings.introspection) as Plugin<Context>,
    useDeprecationSignals({ matcher: graphqlMatcher(registry), policy, restBase }),
    useTraceId() as Plugin<Context>,
  ];
  if (shapes)
    plugins.push(useShapeRecord((caller, names, signature) => shapes.record('graphql', caller, names, signature)));

  if (rateBudget) plugins.push(useRateBudget<Context>({ ...rateBudget, metrics }));
  // Executes each document through code compiled once for it (cached per document).
  plugins.push(useGraphQlJit() as Plugin<Context>);
  // Last, as Yoga places its own: after every request parser is registered.
  plugins.push(useRequestBodyLimit(settings.maxBodyBytes) as Plugin<Context>);

  const yoga: YogaServerInstance<ServerContext, Context> = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // The same limit as Yoga's, checked by useRequestBodyLimit without streaming every body through a counter.
    maxRequestBodySize: false,
    // One CORS policy for the whole server: Yoga's own would echo any origin.
    cors: false,
    landingPage: false,
    // GraphiQL is a static page of the public port (src/http/graphiql-page.ts), not rendered per request.
    graphiql: false,
    extraParamNames: ['documentId'],
    // Yoga reports every field error at error level; expected ones are the client's, and unexpected ones
    // are logged once by maskError with the request's context.
    logging: {
      debug: (...args: unknown[]) => logger.debug({ yoga: args }, 'yoga'),
      info: (...args: unknown[]) => logger.debug({ yoga: args }, 'yoga'),
      warn: (...args: unknown[]) => logger.warn({ yoga: args }, 'yoga'),
      error: (...args: unknown[]) => logger.debug({ yoga: args }, 'yoga'),
    },
    plugins,
    maskedErrors: { maskError: (error) => maskError(error, logger) },
    async context({ request, clientName, rateExchange }) {
      const caller = await authenticate(core, request.headers.get('authorization'));
      return {
        core,
        caller,
        loaders: createLoaders(core, caller),
        timeBudget: new TimeBudget(settings.timeoutMs),
        clientName: clientName ?? 'unknown',
        ...(rateExchange ? { rateExchange } : {}),
        ...(subscriptions ? { subscriptions } : {}),
      };
    },
  });
  return yoga;
}

/** The schema's SDL, the persisted operations' manifest and the generated input rules of a checkout. */
async function readSchemaAndManifest(projectRoot: string) {
  const [typeDefs, manifestText, inputRules] = await Promise.all([
    readFile(path.join(projectRoot, 'contracts/schema.graphql'), 'utf8'),
    readFile(path.join(projectRoot, 'generated/graphql/persisted-operations.json'), 'utf8'),
    readInputRules(projectRoot),
  ]);
  return { typeDefs, manifest: JSON.parse(manifestText) as Record<string, string>, inputRules };
}

async function authenticate(core: Core, header: string | null): Promise<Caller | null> {
  const caller = await callerFromAuthorization(core, header);
  if (caller !== 'invalid') return caller;
  // A wrong key is an HTTP 401, not an anonymous request (docs/decisions.md §9).
  const wrongKey = unauthenticated.wrongKey();
  throw new GraphQLError(wrongKey.detail, {
    extensions: {
      code: wrongKey.code,
      http: { status: httpStatusOf.UNAUTHENTICATED, headers: { 'WWW-Authenticate': bearerChallenge(true) } },
    },
  });
}
