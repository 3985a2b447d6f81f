/**
 * The REST pipeline for everything under `/v1`, driven by contracts/openapi.yaml: route (404/405), content
 * negotiation (406), query rules (unknown or repeated parameters), body (415/413/malformed), credential
 * (401), validation against the contract (400 with every violation), deprecation headers, then the
 * operation's handler. Domain errors become problem documents through the one error catalog.
 */
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { DeprecationRegistry } from '../core/deprecation-registry.js';
import { DomainError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { UsageRecorder } from '../core/usage-recorder.js';
import { callerOfRequest, unauthenticatedResponse } from '../http/bearer.js';
import { clientOf, type Metrics, routeOf } from '../http/metrics.js';
import { catalogProblem } from '../http/problem.js';
import { loadRestContract, type RestContract } from './contract.js';
import { type ItemUse, type RestDeprecations, restDeprecations, signalHeaders } from './deprecation-signals.js';
import { createHandlers } from './handlers.js';
import {
  type AjvError,
  acceptable,
  PRODUCED,
  readBody,
  readQuery,
  rejectNulCharacters,
  splitUrl,
  validationError,
} from './read-request.js';
import { includes } from './request.js';
import type { Handler } from './respond.js';

/** Operations served by the health routes outside /v1, not by REST handlers. */
const HEALTH_OPERATIONS = new Set(['getHealth', 'getReadiness', 'getLiveness']);

export const MAX_BODY_BYTES = 1024 * 1024;

/** Everything the REST app needs. */
export interface RestAppDeps {
  projectRoot: string;
  core: Core;
  logger: Logger;
  metrics: Metrics;
  /** Deprecated and watched items (generated/deprecations.json); none when absent. */
  registry?: DeprecationRegistry;
  /** Where uses of those items are counted per caller. */
  recorder?: UsageRecorder;
}

/** Builds the `/v1` app. */
export async function createRestApp({
  projectRoot,
  core,
  logger,
  metrics,
  registry = { items: [] },
  recorder,
}: RestAppDeps): Promise<Hono> {
  const contract = await loadRestContract(projectRoot);
  const handlers = createHandlers(core);
  const deprecations = restDeprecations(registry, contract.definition);
  const signals = { deprecations, metrics, ...(recorder ? { recorder } : {}) };
  for (const operation of contract.api.getOperations()) {
    const id = operation.operationId as string;
    if (!HEALTH_OPERATIONS.has(id) && !handlers[id]) throw new Error(`the contract's operation ${id} has no handler`);
  }

  const app = new Hono();
  app.all('*', async (c) => {
    try {
      return await handle(c, contract, handlers, core, signals);
    } catch (error) {
      if (error instanceof DomainError) return domainProblem(c, error);
      logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
      return catalogProblem(
        c,
        'INTERNAL',
        'The server failed to answer; the request id identifies the failure in the logs.',
      );
    }
  });
  return app;
}

async function handle(
  c: Context,
  contract: RestContract,
  handlers: Record<string, Handler>,
  core: Core,
  signals: { deprecations: RestDeprecations; metrics: Metrics; recorder?: UsageRecorder },
): Promise<Response> {
  const url = splitUrl(c.req.url);
  const route = contract.match(c.req.method, url.pathname);
  if (route.kind === 'not-found') return catalogProblem(c, 'NOT_FOUND', `There is nothing at ${url.pathname}.`);
  if (route.kind === 'method-not-allowed') {
    return catalogProblem(c, 'METHOD_NOT_ALLOWED', `${url.pathname} does not take ${c.req.method}.`, undefined, {
      Allow: route.allow.join(', '),
    });
  }
  const { operationId } = route;
  routeOf.set(c.req.raw, operationId);
  const operation = contract.operation(operationId);

  if (!acceptable(c.req.header('accept'))) {
    return catalogProblem(c, 'NOT_ACCEPTABLE', `This API answers ${PRODUCED.join(' or ')}.`);
  }

  const caller = await callerOfRequest(c, core);
  if (caller === 'invalid') return unauthenticatedResponse(c, 'wrong-key');
  // Only operations the contract marks `security: []` (product reads) answer without a key.
  const open = Array.isArray(operation.security) && operation.security.length === 0;
  if (!caller && !open) {
    return unauthenticatedResponse(c, 'missing');
  }

  const query = readQuery(url.search, contract, operationId);

  const body = await readBody(c, operation.requestBody as { content?: Record<string, unknown> } | undefined);
  if (body instanceof Response) return body;
  rejectNulCharacters(query, body);

  const header = (name: string) => c.req.header(name);
  const validation = contract.validate(operationId, { rawParams: route.rawParams, query, header, body });
  if (!validation.valid) {
    const error = validationError((validation.errors ?? []) as AjvError[]);
    // A path id out of range names nothing, as a non-numeric one does.
    if (error.violations?.some((violation) => violation.in === 'path')) {
      return catalogProblem(c, 'NOT_FOUND', `There is nothing at ${url.pathname}.`);
    }
    throw error;
  }

  // Deprecated and watched items: the ones the request sends and the ones its answer would carry.
  const uses = signals.deprecations.requestUses(operationId, { query, headers: c.req.raw.headers, body });
  const include = includes(query.include ?? (body as { include?: string[] } | undefined)?.include);
  const received = signals.deprecations.responseUses(operationId, include);
  const count = (found: ItemUse[]) =>
    countUses(signals, found, caller ? caller.apiKeyId : 0, c.req.header('user-agent'));
  const refused = brownoutResponse(c, core.brownouts, [...uses, ...received], count);
  if (refused) return refused;
  count(uses);
  const announced = core.brownouts.announced;
  for (const [name, value] of Object.entries(signalHeaders(uses, announced))) c.header(name, value);

  // Every operation of the contract has a handler: createRestApp checks that at start.
  const handler = handlers[operationId] as Handler;
  const response = await handler({
    c,
    operationId,
    params: route.params,
    query,
    body,
    caller: caller ?? undefined,
    header,
  });
  if (response.status >= 200 && response.status < 300) {
    count(received);
    for (const [name, value] of Object.entries(signalHeaders([...uses, ...received], announced))) {
      response.headers.set(name, value);
    }
  }
  return response;
}

/**
 * `410 BROWNOUT` when the request uses (or its answer would carry) a deprecated item in a running brownout
 * window, before the handler runs, so nothing is done: the deprecation signals, and `Retry-After` the
 * window's end. The refused attempt is counted per caller as a brownout hit.
 */
function brownoutResponse(
  c: Context,
  brownouts: Core['brownouts'],
  uses: ItemUse[],
  count: (found: ItemUse[]) => void,
): Response | undefined {
  const used = uses.filter((use) => use.kind === 'use' && use.item.status === 'deprecated');
  if (used.length === 0) return undefined;
  const refusal = brownouts.refusal(used.map((use) => use.item.id));
  if (!refusal) return undefined;
  count(used.filter((use) => brownouts.active(use.item.id)).map((use) => ({ item: use.item, kind: 'brownout' })));
  return catalogProblem(c, 'BROWNOUT', refusal.error.detail, undefined, {
    ...signalHeaders(used, brownouts.announced),
    'Retry-After': String(refusal.retryAfterSeconds),
  });
}

/** Counts uses of deprecated and watched items: a bounded Prometheus counter and the per-caller record. */
function countUses(
  { metrics, recorder }: { metrics: Metrics; recorder?: UsageRecorder },
  found: ItemUse[],
  apiKeyId: number | null,
  userAgent: string | undefined,
): void {
  if (found.length === 0) return;
  const client = clientOf(userAgent);
  for (const { item, kind } of found) {
    metrics.deprecatedUsage.inc({ item: item.id, kind });
    recorder?.record({ item: item.id, apiKeyId, client, kind });
  }
}

function domainProblem(c: Context, error: DomainError): Response {
  return catalogProblem(c, error.code, error.detail, error.violations);
}
