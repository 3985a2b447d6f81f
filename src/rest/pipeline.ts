/**
 * The steps of the REST pipeline under `/v1`, each a named Hono middleware that answers its own failure
 * or hands what it read to the next step in a typed context variable: route (404/405), negotiate (406),
 * authenticate (401), query rules (unknown or repeated parameters), body (415/413/malformed, NUL),
 * validation against the contract (400 with every violation), deprecation signals and brownouts (410),
 * then the operation's handler. They run as one chain (src/http/chain.ts): an error thrown by any step
 * becomes a problem document where it is thrown (`problemOnError`, src/http/problem.ts), so the steps
 * around it see the problem's status.
 * Variables are read with `c.get`: Hono's `c.var` copies every variable into a new object on each read.
 * A step with nothing to do after the handler is a plain function that returns `next()`, not an async
 * one awaiting it: each async step costs every request a suspended frame and its promises.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { Caller } from '../core/caller.js';
import type { Core } from '../core/index.js';
import type { UsageRecorder } from '../core/usage-recorder.js';
import { callerOfRequest, unauthenticatedResponse } from '../http/bearer.js';
import type { ChainStep } from '../http/chain.js';
import { catalogProblem } from '../http/problem.js';
import { clientOf, type Metrics } from '../observability/metrics.js';
import type { RestContract } from './contract.js';
import { type ItemUse, type RestDeprecations, signalHeaders } from './deprecation-signals.js';
import {
  type AjvError,
  acceptable,
  PRODUCED,
  readBody,
  readQuery,
  rejectNulCharacters,
  splitUrl,
  validationError,
} from './request-parsing.js';
import type { Handler } from './respond.js';
import { includes, partialRequest } from './validated-request.js';

/** What the steps hand on, typed for every step after the one that sets it. */
export interface RestVariables {
  /** The matched operation, its path parameters, and the request's path and query string. */
  operation: {
    operationId: string;
    params: Record<string, number | string>;
    rawParams: Record<string, string>;
    pathname: string;
    search: string;
  };
  /** The authenticated caller; undefined on operations that need no credential. */
  restCaller: Caller | undefined;
  query: Record<string, string>;
  fields: ReadonlySet<string> | undefined;
  body: unknown;
}

/** The Hono environment of the `/v1` app. */
export type RestEnv = { Variables: RestVariables };
/** A step of the chain: answers a refusal at once, or hands the request on and returns what `next()` returns. */
type Step = ChainStep<RestEnv>;

/** Matches the path and method against the contract's routes: 404 or 405 (with `Allow`) otherwise. */
export function routeRequests(contract: RestContract): Step {
  return function route(c, next) {
    const { pathname, search } = splitUrl(c.req.url);
    const match = contract.match(c.req.method, pathname);
    if (match.kind === 'not-found') return catalogProblem(c, 'NOT_FOUND', `There is nothing at ${pathname}.`);
    if (match.kind === 'method-not-allowed') {
      return catalogProblem(c, 'METHOD_NOT_ALLOWED', `${pathname} does not take ${c.req.method}.`, undefined, {
        Allow: match.allow.join(', '),
      });
    }
    const { operationId, params, rawParams } = match;
    c.set('operation', { operationId, params, rawParams, pathname, search });
    c.set('route', operationId);
    return next();
  };
}

/** 406 unless `Accept` allows JSON or problem+JSON. */
export function negotiate(): Step {
  return function negotiateMediaType(c, next) {
    if (!acceptable(c.req.header('accept'))) {
      return catalogProblem(c, 'NOT_ACCEPTABLE', `This API answers ${PRODUCED.join(' or ')}.`);
    }
    return next();
  };
}

/** 401 for a wrong key, or for no key where the contract asks for one (only `security: []` is open). */
export function authenticate(contract: RestContract, core: Core): Step {
  return async function authenticateCaller(c, next) {
    const caller = await callerOfRequest(c, core);
    if (caller === 'invalid') return unauthenticatedResponse(c, 'wrong-key');
    const { security } = contract.operation(c.get('operation').operationId);
    const open = Array.isArray(security) && security.length === 0;
    if (!caller && !open) return unauthenticatedResponse(c, 'missing');
    c.set('restCaller', caller ?? undefined);
    await next();
  };
}

/** The query by the operation's rules: an unknown or repeated parameter is 400. */
export function readQueryParameters(contract: RestContract): Step {
  return function readQueryString(c, next) {
    const { search, operationId } = c.get('operation');
    c.set('query', readQuery(search, contract, operationId));
    return next();
  };
}

/** The JSON body (415, 413, malformed JSON), and no NUL character in the query or the body. */
export function readRequestBody(contract: RestContract): Step {
  return function readJsonBody(c, next) {
    const { requestBody } = contract.operation(c.get('operation').operationId);
    if (!requestBody) {
      rejectNulCharacters(c.get('query'), undefined);
      return next();
    }
    return readThenHandOn(c, next, requestBody as { content?: Record<string, unknown> });
  };
}

/** Reads the body of an operation that takes one, then hands the request on. */
async function readThenHandOn(
  c: Context<RestEnv>,
  next: Next,
  requestBody: { content?: Record<string, unknown> },
): Promise<Response | undefined> {
  const body = await readBody(c, requestBody);
  if (body instanceof Response) return body;
  rejectNulCharacters(c.get('query'), body);
  c.set('body', body);
  await next();
  return undefined;
}

/** Every violation of the operation's schemas is one 400 (a path id out of range: 404); then `fields` is read. */
export function validateRequest(contract: RestContract): Step {
  return function validateAgainstContract(c, next) {
    const { operationId, rawParams, pathname } = c.get('operation');
    const query = c.get('query');
    const body = c.get('body');
    const validation = contract.validate(operationId, { rawParams, query, header: (name) => c.req.header(name), body });
    if (!validation.valid) {
      const error = validationError((validation.errors ?? []) as AjvError[]);
      if (error.violations?.some((violation) => violation.in === 'path')) {
        return catalogProblem(c, 'NOT_FOUND', `There is nothing at ${pathname}.`);
      }
      throw error;
    }
    const partial = partialRequest(query, body);
    if (partial) for (const name of ['fields', 'query'] as const) c.set(name, partial[name]);
    return next();
  };
}

/** What the deprecation step needs. */
export interface DeprecationStepOptions {
  deprecations: RestDeprecations;
  brownouts: Core['brownouts'];
  metrics: Metrics;
  recorder?: UsageRecorder;
}

/**
 * Deprecated and watched items: those the request sends and those its answer would carry. A running
 * brownout window of one answers `410 BROWNOUT` before the handler; otherwise the uses are counted per
 * caller and a 2xx answer carries the signals (`Deprecation`, `Sunset`, `Link`, `Brownout`).
 */
export function deprecationSignals(options: DeprecationStepOptions): Step {
  return function signalDeprecations(c, next) {
    const { operationId } = c.get('operation');
    const query = c.get('query');
    const body = c.get('body');
    const uses = options.deprecations.requestUses(operationId, { query, header: (name) => c.req.header(name), body });
    const include = includes(query.include ?? (body as { include?: string[] } | undefined)?.include);
    const received = options.deprecations.responseUses(operationId, include);
    if (uses.length === 0 && received.length === 0) return next();
    return countAndSignal(c, next, options, uses, received);
  };
}

/** The deprecation step of a request that uses (or whose answer would carry) registered items. */
async function countAndSignal(
  c: Context<RestEnv>,
  next: Next,
  { brownouts, metrics, recorder }: DeprecationStepOptions,
  uses: ItemUse[],
  received: ItemUse[],
): Promise<Response | undefined> {
  const apiKeyId = c.get('restCaller')?.apiKeyId ?? 0;
  const client = clientOf(c.req.header('user-agent'));
  const count = (found: ItemUse[]) => {
    for (const { item, kind } of found) {
      metrics.deprecatedUsage.inc({ item: item.id, kind });
      recorder?.record({ item: item.id, apiKeyId, client, kind });
    }
  };
  // Watched items are only counted: no brownout window and no signal header can concern them.
  const deprecated = uses.some(isDeprecated) || received.some(isDeprecated);
  const refused = deprecated ? brownoutResponse(c, brownouts, [...uses, ...received], count) : undefined;
  if (refused) return refused;
  count(uses);
  await next();
  const succeeded = c.res.status >= 200 && c.res.status < 300;
  if (succeeded) count(received);
  if (!deprecated) return;
  const signalled = succeeded ? [...uses, ...received] : uses;
  for (const [name, value] of Object.entries(signalHeaders(signalled, brownouts.announced))) {
    c.res.headers.set(name, value);
  }
}

const isDeprecated = (use: ItemUse) => use.item.status === 'deprecated';

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
  const refusal = brownouts.refusal(uses.filter((use) => use.kind === 'use').map((use) => use.item.id));
  if (!refusal) return undefined;
  count(refusal.blocked.map((item) => ({ item, kind: 'brownout' })));
  return catalogProblem(c, 'BROWNOUT', refusal.error.detail, undefined, {
    ...signalHeaders(uses, brownouts.announced),
    'Retry-After': String(refusal.retryAfterSeconds),
  });
}

/** The operation's handler, given what the steps read. */
export function dispatch(handlers: Record<string, Handler>): MiddlewareHandler<RestEnv> {
  return function handleOperation(c) {
    const { operationId, params } = c.get('operation');
    // Every operation of the contract has a handler: createRestApp checks that at start.
    const handler = handlers[operationId] as Handler;
    return handler({
      c,
      operationId,
      params,
      query: c.get('query'),
      body: c.get('body'),
      caller: c.get('restCaller'),
      fields: c.get('fields'),
      header: (name) => c.req.header(name),
    });
  };
}
