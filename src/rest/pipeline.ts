/**
 * The steps of the REST pipeline under `/v1`, each a named Hono middleware that answers its own failure
 * or hands what it read to the next step in a typed context variable: route (404/405), negotiate (406),
 * authenticate (401), the key's scope (403), query rules (unknown or repeated parameters), body (415/413/malformed, NUL),
 * validation against the contract (400 with every violation), the deprecation step (./deprecation-step.ts:
 * the core's policy applied; 410 or 400 BROWNOUT, a withheld property), then the operation's handler. They run as one chain (src/http/chain.ts): an error thrown by any step
 * becomes a problem document where it is thrown (`problemOnError`, src/http/problem.ts), so the steps
 * around it see the problem's status.
 * Variables are read with `c.get`: Hono's `c.var` copies every variable into a new object on each read.
 * A step with nothing to do after the handler is a plain function that returns `next()`, not an async
 * one awaiting it: each async step costs every request a suspended frame and its promises.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { Core } from '../core/index.js';
import type { Caller } from '../core/shared/caller.js';
import { requireScope } from '../core/shared/scopes.js';
import { callerOfRequest, unauthenticatedResponse } from '../http/bearer.js';
import type { ChainStep } from '../http/chain.js';
import { type AjvError, rejectNulCharacters, validationError } from '../http/input-rules.js';
import { catalogProblem } from '../http/problem.js';
import type { RestContract } from './contract.js';
import { acceptable, PRODUCED, readBody, readQuery, splitUrl } from './request-parsing.js';
import type { Handler } from './respond.js';
import { partialRequest } from './validated-request.js';

/** What the steps hand on, typed for every step after the one that sets it. */
export interface RestVariables {
  /** The matched operation, its path parameters, and the request's path and query string. */
  operation: {
    operationId: string;
    /** The version the request named (`v2`); an older version's operation may serve it (./router.ts). */
    version: string;
    /** That version's URL prefix (`/v2`), for the paths its answers name (`Location`, links). */
    base: string;
    params: Record<string, number | string>;
    rawParams: Record<string, string>;
    pathname: string;
    search: string;
  };
  /** The authenticated caller; undefined on operations that need no credential. */
  restCaller: Caller | undefined;
  query: Record<string, string>;
  /** The top-level members a partial answer is to hold (`fields=`); undefined for a full answer. */
  fields: ReadonlySet<string> | undefined;
  body: unknown;
  /** Set by the deprecation step when a brownout withholds a property from this answer. */
  trimmed: boolean | undefined;
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
    const { operationId, version, params, rawParams } = match;
    const base = contract.mounts.prefix(version);
    c.set('operation', { operationId, version, base, params, rawParams, pathname, search });
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

/**
 * 403 INSUFFICIENT_SCOPE unless the caller's key holds the scope the operation declares (`x-scope`, read
 * at start); the rule is the core's (src/core/shared/scopes.ts), so GraphQL refuses alike.
 */
export function authorizeScope(contract: RestContract): Step {
  return function requireDeclaredScope(c, next) {
    requireScope(c.get('restCaller'), contract.scope(c.get('operation').operationId));
    return next();
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
      rejectNulCharacters({ query: c.get('query') });
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
  rejectNulCharacters({ query: c.get('query'), body });
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

/** The operation's handler, given what the steps read. */
export function dispatch(handlers: Record<string, Handler>): MiddlewareHandler<RestEnv> {
  return function handleOperation(c) {
    const { operationId, params, base } = c.get('operation');
    // Every operation of the contract has a handler: createRestApp checks that at start.
    const handler = handlers[operationId] as Handler;
    return handler({
      c,
      operationId,
      base,
      params,
      query: c.get('query'),
      body: c.get('body'),
      caller: c.get('restCaller'),
      fields: c.get('fields'),
      header: (name) => c.req.header(name),
    });
  };
}
