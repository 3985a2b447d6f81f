import { readFile } from 'node:fs/promises';
import path from 'node:path';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';

/** Where a request's path leads: an operation, a path without this method, or nowhere. */
export type RouteMatch =
  | {
      kind: 'operation';
      operationId: string;
      params: Record<string, number | string>;
      /** The path parameters as sent (percent-decoded), for validation. */
      rawParams: Record<string, string>;
    }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface PathRoute {
  pattern: RegExp;
  methods: Map<string, string>;
  /** Static paths (e.g. `/v1/users/me`) win over templated ones (`/v1/users/{userId}`). */
  staticSegments: number;
  /** The first two segments (`/v1/orders`) when both are static. */
  prefix: string | undefined;
}

interface ParameterObject {
  name: string;
  in: string;
}

/** The REST contract, loaded once at start: the request validator and the routes. */
export interface RestContract {
  api: OpenAPIBackend;
  /** The document as written (references unresolved). */
  definition: Record<string, unknown>;
  match(method: string, pathname: string): RouteMatch;
  operation(operationId: string): Operation;
  /** The query parameter names the operation defines. */
  queryParameters(operationId: string): Set<string>;
  /** Its array-valued query parameters (comma-separated; the repeated form is accepted as the same). */
  listParameters(operationId: string): Set<string>;
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

interface QueryParameter {
  name: string;
  explode?: boolean;
  style?: string;
  schema?: { type?: unknown };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Loads contracts/openapi.yaml and compiles its validators (openapi-backend over ajv, once). Routes come
 * from the contract: every path id in this API is a positive integer, so a templated segment matches
 * digits only, and `/v1/orders/abc` is a 404 rather than a validation error (docs/decisions.md §9).
 */
export async function readRestContract(projectRoot: string): Promise<RestContract> {
  return loadRestContract(parseYaml(await readFile(path.join(projectRoot, 'contracts/openapi.yaml'), 'utf8')));
}

/** Compiles a parsed OpenAPI document (left as it is: a copy is compiled) into the REST contract. */
export async function loadRestContract(document: Record<string, unknown>): Promise<RestContract> {
  // A document read from YAML: its shape is the contract's (lint and the generated types check it).
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as parsed
  const definition: any = structuredClone(document);
  // openapi-backend resolves references in place; the deprecation signals need them as written.
  const asWritten = structuredClone(definition);
  const api = new OpenAPIBackend({
    definition,
    // openapi-backend validates documents against OpenAPI 3.0 only; Redocly lints this 3.1 document.
    quick: true,
    strict: true,
    validate: true,
    // Query, path and header values are coerced by openapi-backend itself; bodies are checked as sent.
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (ajv) => {
      addFormats.default(ajv as never);
      ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
      return ajv;
    },
  });
  await api.init();

  const routes: PathRoute[] = [];
  const operations = new Map<string, Operation>();
  const queryNames = new Map<string, Set<string>>();
  const listNames = new Map<string, Set<string>>();
  const queryParameters = new Map<string, Map<string, QueryParameter>>();
  const headerNames = new Map<string, string[]>();
  const paths = definition.paths as Record<string, Record<string, unknown>>;
  for (const [template, item] of Object.entries(paths)) {
    const segments = template.split('/').slice(1);
    const textual = textualPathParameters(asWritten, item);
    const pattern = new RegExp(
      `^/${segments
        .map((segment) => {
          if (!segment.startsWith('{')) return escapeRegExp(segment);
          const name = segment.slice(1, -1);
          return `(?<${name}>${textual.get(name) ?? '[1-9][0-9]{0,15}'})`;
        })
        .join('/')}$`,
    );
    const methods = new Map<string, string>();
    for (const method of METHODS) {
      const operationId = (item[method] as { operationId?: string } | undefined)?.operationId;
      if (operationId) methods.set(method.toUpperCase(), operationId);
    }
    const prefix = segments.slice(0, 2).some((s) => s.startsWith('{')) ? undefined : prefixOf(template);
    routes.push({ pattern, methods, staticSegments: segments.filter((s) => !s.startsWith('{')).length, prefix });
  }
  routes.sort((a, b) => b.staticSegments - a.staticSegments);
  // Routes grouped by their first two segments (`/v1/orders`), so that a request is tested only against
  // its resource's few patterns; a template with a parameter there is tested against every path.
  const byPrefix = new Map<string, PathRoute[]>();
  const anyPrefix = routes.filter((route) => !route.prefix);
  for (const route of routes) {
    if (!route.prefix) continue;
    byPrefix.set(route.prefix, [...(byPrefix.get(route.prefix) ?? []), route]);
  }
  const routesFor = (pathname: string): PathRoute[] => {
    const own = byPrefix.get(prefixOf(pathname));
    if (!own) return anyPrefix;
    return anyPrefix.length === 0 ? own : [...own, ...anyPrefix].sort((a, b) => b.staticSegments - a.staticSegments);
  };
  for (const operation of api.getOperations()) {
    operations.set(operation.operationId as string, operation);
    const names = new Set<string>();
    const lists = new Set<string>();
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.in === 'query') names.add(parameter.name);
      if (parameter.in === 'query' && (parameter as { schema?: { type?: unknown } }).schema?.type === 'array') {
        lists.add(parameter.name);
      }
    }
    queryNames.set(operation.operationId as string, names);
    listNames.set(operation.operationId as string, lists);
    const declared = (operation.parameters ?? []) as Array<ParameterObject & QueryParameter>;
    queryParameters.set(
      operation.operationId as string,
      new Map(declared.filter((p) => p.in === 'query').map((p) => [p.name, p])),
    );
    headerNames.set(
      operation.operationId as string,
      declared.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
    );
  }

  return {
    api,
    definition: asWritten,
    match(method, pathname) {
      const candidates = routesFor(pathname).filter((route) => route.pattern.test(pathname));
      if (candidates.length === 0) return { kind: 'not-found' };
      const verb = method === 'HEAD' ? 'GET' : method;
      for (const route of candidates) {
        const operationId = route.methods.get(verb);
        if (!operationId) continue;
        const groups = route.pattern.exec(pathname)?.groups ?? {};
        const params = Object.fromEntries(
          Object.entries(groups).map(([name, value]) => [name, /^[0-9]+$/.test(value) ? Number(value) : value]),
        );
        const rawParams = Object.fromEntries(Object.entries(groups).map(([name, value]) => [name, decoded(value)]));
        return { kind: 'operation', operationId, params, rawParams };
      }
      const allow = [...new Set(candidates.flatMap((route) => [...route.methods.keys()]))];
      return { kind: 'method-not-allowed', allow: allow.includes('GET') ? [...allow, 'HEAD'] : allow };
    },
    validate(operationId, { rawParams, query, header, body }) {
      // The same parameter object validateRequest builds: list parameters that are not exploded split at
      // commas, single values of array parameters wrapped, header names in lower case, no cookies.
      const declared = queryParameters.get(operationId) ?? new Map<string, QueryParameter>();
      const parsedQuery: Record<string, unknown> = { ...query };
      for (const [name, value] of Object.entries(query)) {
        const parameter = declared.get(name);
        if (!value || !parameter) continue;
        if (parameter.explode === false) parsedQuery[name] = value.replace(/%2C/g, ',').split(',');
        else if (parameter.schema?.type === 'array') parsedQuery[name] = [value];
      }
      const headers: Record<string, string> = {};
      for (const name of [...(headerNames.get(operationId) ?? []), 'content-type']) {
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
    },
    operation(operationId) {
      const operation = operations.get(operationId);
      if (!operation) throw new Error(`unknown operation ${operationId}`);
      return operation;
    },
    queryParameters: (operationId) => queryNames.get(operationId) ?? new Set(),
    listParameters: (operationId) => listNames.get(operationId) ?? new Set(),
  };
}

/**
 * Path parameters that are strings with a pattern (the deprecation item id) match that pattern; every other
 * path id is a positive integer.
 */
function textualPathParameters(document: Record<string, unknown>, pathItem: Record<string, unknown>) {
  const resolve = (node: Record<string, unknown>): Record<string, unknown> =>
    typeof node.$ref === 'string'
      ? resolve(
          node.$ref
            .replace(/^#\//, '')
            .split('/')
            .reduce<Record<string, unknown>>((at, key) => (at[key] ?? {}) as Record<string, unknown>, document),
        )
      : node;
  const found = new Map<string, string>();
  const operations = Object.values(pathItem).filter((value) => typeof value === 'object' && value !== null);
  const all = [pathItem, ...operations].flatMap(
    (node) => ((node as { parameters?: unknown[] }).parameters ?? []) as Array<Record<string, unknown>>,
  );
  for (const parameter of all.map(resolve)) {
    const schema = resolve((parameter.schema ?? {}) as Record<string, unknown>);
    if (parameter.in === 'path' && schema.type === 'string' && typeof schema.pattern === 'string') {
      found.set(parameter.name as string, schema.pattern.replace(/^\^/, '').replace(/\$$/, ''));
    }
  }
  return found;
}

/** The first two segments of a path: `/v1/orders/7/items` → `/v1/orders`. */
function prefixOf(pathname: string): string {
  const second = pathname.indexOf('/', 1);
  if (second < 0) return pathname;
  const third = pathname.indexOf('/', second + 1);
  return third < 0 ? pathname : pathname.slice(0, third);
}

/** A path segment percent-decoded, or as sent when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
