import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import type { ScopeDeclaration } from '../core/shared/scope-catalog.js';
import { scopeDeclaration } from '../core/shared/scopes.js';
import { withContractRules } from '../http/input-rules.js';
import { type VersionMounts, versionMounts } from '../http/version-mounts.js';
import { createRouter, type RouteMatch } from './router.js';

export type { RouteMatch } from './router.js';

/** The REST contract, loaded once at start: the request validator and the routes. */
export interface RestContract {
  api: OpenAPIBackend;
  /** The document as written (references unresolved). */
  definition: Record<string, unknown>;
  /** The versions its paths declare, and how their URLs are written (./version-mounts.ts). */
  mounts: VersionMounts;
  match(method: string, pathname: string): RouteMatch;
  operation(operationId: string): Operation;
  /** The query parameter names the operation defines. */
  queryParameters(operationId: string): Set<string>;
  /** Its array-valued query parameters (comma-separated; the repeated form is accepted as the same). */
  listParameters(operationId: string): Set<string>;
  /** The scope the operation declares in `x-scope` (`public`: none needed). */
  scope(operationId: string): ScopeDeclaration;
  /**
   * Checks a request against the operation's schemas with openapi-backend's compiled validators, given the
   * parts the router has already read: what `validator.validateRequest` does, without parsing the request
   * again (its parser compiled the path template and cloned the query and headers on every request).
   */
  validate(operationId: string, request: RequestParts): { valid: boolean; errors: unknown[] };
}

/** A request as the router has read it. */
export interface RequestParts {
  rawParams: Record<string, string>;
  query: Record<string, string>;
  /** Reads a header (any case). */
  header(name: string): string | undefined;
  /** The parsed JSON body, if the request has one. */
  body?: unknown;
}

interface DeclaredParameter {
  name: string;
  in: string;
  explode?: boolean;
  style?: string;
  schema?: { type?: unknown };
}

/** What each operation declares, indexed once at start. */
interface OperationParameters {
  operation: Operation;
  /** Query parameter names. */
  query: Set<string>;
  /** Array-valued query parameter names. */
  lists: Set<string>;
  /** Query parameters by name. */
  queryByName: Map<string, DeclaredParameter>;
  /** Header parameter names in lower case, and `content-type`: the headers validation reads. */
  headers: string[];
  /** Its `x-scope`: a contract without one for every operation does not load. */
  scope: ScopeDeclaration;
}

/** Loads contracts/openapi.yaml and compiles its validators and routes (`loadRestContract`). */
export async function readRestContract(projectRoot: string): Promise<RestContract> {
  return loadRestContract(parseYaml(await readFile(path.join(projectRoot, 'contracts/openapi.yaml'), 'utf8')));
}

/**
 * Compiles a parsed OpenAPI document (left as it is: a copy is compiled) into the REST contract: the
 * validators of openapi-backend over ajv, once, and the routes (router.ts).
 */
export async function loadRestContract(document: Record<string, unknown>): Promise<RestContract> {
  // openapi-backend resolves references in place; the router and the deprecation signals need them as written.
  const asWritten = structuredClone(document);
  const api = await compiledBackend(structuredClone(document));
  const declared = new Map(
    api.getOperations().map((operation) => [operation.operationId as string, indexed(operation)]),
  );
  const parametersOf = (operationId: string) => declared.get(operationId);
  const mounts = versionMounts(asWritten);
  return {
    api,
    definition: asWritten,
    mounts,
    match: createRouter(asWritten, mounts),
    validate: (operationId, request) => validate(api, parametersOf(operationId), operationId, request),
    operation(operationId) {
      const operation = parametersOf(operationId)?.operation;
      if (!operation) throw new Error(`unknown operation ${operationId}`);
      return operation;
    },
    queryParameters: (operationId) => parametersOf(operationId)?.query ?? new Set(),
    listParameters: (operationId) => parametersOf(operationId)?.lists ?? new Set(),
    scope(operationId) {
      const declared = parametersOf(operationId);
      if (!declared) throw new Error(`unknown operation ${operationId}`);
      return declared.scope;
    },
  };
}

async function compiledBackend(definition: Record<string, unknown>): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    // A document read from YAML: its shape is the contract's (lint and the generated types check it).
    definition: definition as never,
    // openapi-backend validates documents against OpenAPI 3.0 only; Redocly lints this 3.1 document.
    quick: true,
    strict: true,
    validate: true,
    // Query, path and header values are coerced by openapi-backend itself; bodies are checked as sent.
    // `verbose`: an error carries the value that failed, so that a problem can name an unknown enum value.
    ajvOpts: { allErrors: true, strict: false, verbose: true },
    // The contract's formats, `multipleOf` as decimals, lengths in characters (src/http/input-rules.ts).
    customizeAjv: (ajv) => withContractRules(ajv),
  });
  await api.init();
  return api;
}

function indexed(operation: Operation): OperationParameters {
  const declared = (operation.parameters ?? []) as DeclaredParameter[];
  const query = declared.filter((p) => p.in === 'query');
  return {
    operation,
    query: new Set(query.map((p) => p.name)),
    lists: new Set(query.filter((p) => p.schema?.type === 'array').map((p) => p.name)),
    queryByName: new Map(query.map((p) => [p.name, p])),
    headers: [...declared.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()), 'content-type'],
    scope: scopeDeclaration(
      (operation as { 'x-scope'?: unknown })['x-scope'],
      `operation ${operation.operationId as string}`,
    ),
  };
}

/**
 * The same parameter object validateRequest builds: list parameters that are not exploded split at commas,
 * single values of array parameters wrapped, header names in lower case, no cookies.
 */
function validate(
  api: OpenAPIBackend,
  declared: OperationParameters | undefined,
  operationId: string,
  { rawParams, query, header, body }: RequestParts,
): { valid: boolean; errors: unknown[] } {
  const parsedQuery: Record<string, unknown> = { ...query };
  for (const name in query) {
    const value = query[name] as string;
    const parameter = declared?.queryByName.get(name);
    if (!value || !parameter) continue;
    if (parameter.explode === false) parsedQuery[name] = value.replace(/%2C/g, ',').split(',');
    else if (parameter.schema?.type === 'array') parsedQuery[name] = [value];
  }
  const headers: Record<string, string> = {};
  for (const name of declared?.headers ?? ['content-type']) {
    const value = header(name);
    if (value !== undefined) headers[name] = value;
  }
  const parameters: Record<string, unknown> = { path: rawParams, query: parsedQuery, header: headers, cookie: {} };
  const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (typeof body === 'object' || contentType === 'application/json') parameters.requestBody = body;
  const errors: unknown[] = [];
  for (const check of api.validator.getRequestValidatorsForOperation(operationId) ?? []) {
    check(parameters);
    if (check.errors) errors.push(...check.errors);
  }
  return { valid: errors.length === 0, errors };
}
