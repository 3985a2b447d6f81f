import { setMaxListeners } from 'node:events';
/**
 * GraphQL at `/graphql` with graphql-yoga: the schema of contracts/schema.graphql with the typed
 * resolvers, per-request loaders, limits checked before execution, an execution time-out that answers
 * with partial data, persisted operations from the generated manifest, and GraphiQL without a CDN.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLFieldResolver,
  NoSchemaIntrospectionCustomRule,
  type ValidationContext,
} from 'graphql';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { unauthenticated } from '../core/caller.js';
import type { DeprecationRegistry } from '../core/deprecation-registry.js';
import { DomainError, type ErrorCode } from '../core/errors.js';
import type { Caller, Core } from '../core/index.js';
import type { UsageRecorder } from '../core/usage-recorder.js';
import { bearerChallenge, callerFromAuthorization } from '../http/bearer.js';
import type { Metrics } from '../http/metrics.js';
import { createLoaders, type GraphQLContext } from './context.js';
import { BAD_USER_INPUT, useRejectNulCharacters } from './reject-bad-input.js';
import { resolvers } from './resolvers.js';
import { useDeprecationSignals } from './use-deprecation-signals.js';
import { type RateExchange, type UseRateBudgetOptions, useRateBudget } from './use-rate-budget.js';
import { useRequestBodyLimit } from './use-request-body-limit.js';

/** Limits and switches of the GraphQL endpoint (documented defaults in the README and the schema). */
export interface GraphQLSettings {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
  timeoutMs: number;
  persistedOnly: boolean;
  introspection: boolean;
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
  /** Where uses of those items are counted per caller. */
  recorder?: UsageRecorder;
}

interface ServerContext {
  clientName?: string;
  /** Present when the rate budget is on: the client's address in, the RateLimit headers out. */
  rateExchange?: RateExchange;
}

type Context = GraphQLContext & { timer?: NodeJS.Timeout; clientName: string; rateExchange?: RateExchange };

/** Builds the Yoga instance; mount it with `app.on(['GET','POST','OPTIONS'], '/graphql', …)`. */
export async function createGraphQL({
  projectRoot,
  core,
  logger,
  settings,
  metrics,
  rateBudget,
  registry = { items: [] },
  recorder,
}: GraphQLDeps) {
  const [typeDefs, manifestText] = await Promise.all([
    readFile(path.join(projectRoot, 'contracts/schema.graphql'), 'utf8'),
    readFile(path.join(projectRoot, 'generated/graphql/persisted-operations.json'), 'utf8'),
  ]);
  const manifest = JSON.parse(manifestText) as Record<string, string>;
  const schema = createSchema<Context>({ typeDefs, resolvers: withTimeout(resolvers) as never });

  const reject = (code: ErrorCode) => [
    (context: ValidationContext | null, error: GraphQLError) => {
      const refusal = new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code } });
      // The token limit is checked while parsing, before a validation context exists: refuse by throwing.
      if (!context) throw refusal;
      context.reportError(refusal);
    },
  ];

  const plugins: Array<Plugin<Context>> = [
    EnvelopArmorPlugin({
      maxDepth: { n: settings.maxDepth, propagateOnRejection: false, onReject: reject('DEPTH_LIMIT') },
      costLimit: { maxCost: settings.maxCost, propagateOnRejection: false, onReject: reject('COST_LIMIT') },
      maxAliases: { n: settings.maxAliases, propagateOnRejection: false, onReject: reject('ALIAS_LIMIT') },
      maxTokens: { n: settings.maxTokens, propagateOnRejection: false, onReject: reject('TOKEN_LIMIT') },
      maxDirectives: { n: 50, propagateOnRejection: false, onReject: reject('DIRECTIVE_LIMIT') },
      // Field suggestions stay on: the schema is public.
      blockFieldSuggestion: { enabled: false },
    }) as Plugin<Context>,
    useRejectNulCharacters() as Plugin<Context>,
    usePersistedOperations<Context>({
      getPersistedOperation: (key) => manifest[key] ?? null,
      allowArbitraryOperations: !settings.persistedOnly,
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
          extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' satisfies ErrorCode, http: { status: 404 } },
        },
        persistedQueryOnly: {
          message: 'Only persisted operations are accepted here.',
          extensions: { code: 'PERSISTED_QUERY_ONLY' satisfies ErrorCode, http: { status: 403 } },
        },
        keyNotFound: {
          message: 'Send documentId or a persisted query hash.',
          extensions: { code: 'PERSISTED_QUERY_ONLY' satisfies ErrorCode, http: { status: 400 } },
        },
      },
    }),
    {
      // Ends the time budget when execution finishes, and logs failures counted from the body's errors.
      onExecute({ args }) {
        const context = args.contextValue as Context;
        return {
          onExecuteDone({ result }) {
            clearTimeout(context.timer);
            const errors = 'errors' in result ? (result.errors ?? []) : [];
            const operation = args.operationName ?? operationNameOf(args.document) ?? 'anonymous';
            metrics.graphqlOperations.inc({ operation, outcome: errors.length > 0 ? 'error' : 'ok' });
            if (errors.length > 0) {
              logger.info({ operation, codes: errors.map(codeOf) }, 'graphql errors');
            }
          },
        };
      },
      // Every error of every response, including those refused before execution (parse, validation,
      // limits, persisted operations), which never reach onExecuteDone.
      onResultProcess({ result }) {
        for (const single of Array.isArray(result) ? result : [result]) {
          const errors = (single as { errors?: readonly GraphQLError[] } | undefined)?.errors ?? [];
          for (const error of errors) metrics.graphqlErrors.inc({ code: codeOf(error) });
        }
      },
      onValidate({ addValidationRule }) {
        if (!settings.introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
      },
    },
    useDeprecationSignals({ registry, metrics, ...(recorder ? { recorder } : {}) }),
  ];

  if (rateBudget) plugins.push(useRateBudget<Context>({ ...rateBudget, metrics }));
  // Executes each document through code compiled once for it (cached per document).
  plugins.push(useGraphQlJit() as Plugin<Context>);
  // Last, as Yoga places its own: after every request parser is registered.
  plugins.push(useRequestBodyLimit() as Plugin<Context>);

  const yoga: YogaServerInstance<ServerContext, Context> = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // The same limit as Yoga's, checked by useRequestBodyLimit without streaming every body through a counter.
    maxRequestBodySize: false,
    // One CORS policy for the whole server: Yoga's own would echo any origin.
    cors: false,
    landingPage: false,
    graphiql: {
      title: 'Order API · GraphiQL',
      defaultQuery: '{ products(first: 5) { nodes { id name price rating } } }',
    },
    renderGraphiQL,
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
      const controller = new AbortController();
      // Every pending resolver listens on this one signal; a 100-item list has hundreds at once.
      setMaxListeners(0, controller.signal);
      const timer = setTimeout(
        () =>
          controller.abort(
            new GraphQLError(`The operation ran longer than ${settings.timeoutMs} ms and was stopped.`, {
              extensions: { code: 'TIMEOUT' satisfies ErrorCode },
            }),
          ),
        settings.timeoutMs,
      );
      timer.unref();
      return {
        core,
        caller,
        loaders: createLoaders(core, caller),
        signal: controller.signal,
        timer,
        clientName: clientName ?? 'unknown',
        ...(rateExchange ? { rateExchange } : {}),
      };
    },
  });
  return yoga;
}

async function authenticate(core: Core, header: string | null): Promise<Caller | null> {
  const caller = await callerFromAuthorization(core, header);
  if (caller !== 'invalid') return caller;
  // A wrong key is an HTTP 401, not an anonymous request (docs/decisions.md §9).
  const wrongKey = unauthenticated.wrongKey();
  throw new GraphQLError(wrongKey.detail, {
    extensions: {
      code: wrongKey.code,
      http: { status: 401, headers: { 'WWW-Authenticate': bearerChallenge(true) } },
    },
  });
}

/** One mapping from failures to GraphQL errors: catalog codes kept, anything unexpected masked. */
function maskError(error: unknown, logger: Logger): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const located = error instanceof GraphQLError ? error : undefined;
  if (original instanceof DomainError) {
    return new GraphQLError(original.detail, {
      ...(located?.nodes ? { nodes: located.nodes } : {}),
      ...(located?.path ? { path: located.path } : {}),
      extensions: { code: original.code, ...(original.violations ? { violations: original.violations } : {}) },
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
      extensions: { code: BAD_USER_INPUT, http: { status: 400 } },
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

/**
 * Makes every resolver give up when the operation's budget runs out: the field becomes `null` with the
 * TIMEOUT error, fields already resolved stay, and the response is 200 with partial data (docs/decisions.md §5).
 */
function withTimeout<T extends Record<string, Record<string, unknown>>>(map: T): T {
  const wrapped: Record<string, Record<string, unknown>> = {};
  for (const [type, fields] of Object.entries(map)) {
    wrapped[type] = {};
    for (const [field, resolver] of Object.entries(fields)) {
      (wrapped[type] as Record<string, unknown>)[field] =
        typeof resolver === 'function'
          ? (parent: unknown, args: unknown, context: Context, info: unknown) => {
              if (context.signal.aborted) throw context.signal.reason;
              const value = (resolver as GraphQLFieldResolver<unknown, Context>)(parent, args, context, info as never);
              if (!(value instanceof Promise)) return value;
              return new Promise((resolve, reject) => {
                const onAbort = () => reject(context.signal.reason);
                context.signal.addEventListener('abort', onAbort, { once: true });
                value.then(resolve, reject).finally(() => context.signal.removeEventListener('abort', onAbort));
              });
            }
          : resolver;
    }
  }
  return wrapped as T;
}

function operationNameOf(document: DocumentNode): string | undefined {
  for (const definition of document.definitions) {
    if (definition.kind === 'OperationDefinition' && definition.name) return definition.name.value;
  }
  return undefined;
}

/** The catalog code of an error as the client will see it (errors are masked after execution). */
function codeOf(error: GraphQLError): string {
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  const original = error.originalError;
  if (original instanceof DomainError) return original.code;
  if (original instanceof GraphQLError && typeof original.extensions?.code === 'string')
    return original.extensions.code;
  return 'INTERNAL';
}
