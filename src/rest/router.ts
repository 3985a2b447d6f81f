/**
 * The routes of the REST contract. Every path id in this API is a positive integer, so a templated segment
 * matches digits only, and `/v1/orders/abc` is a 404 rather than a validation error (docs/decisions.md §9);
 * a string path parameter with a pattern (the deprecation item id) matches that pattern.
 */

import { atPointer } from '@order-api/contract-registry/matching';
import { type VersionMounts, versionMounts } from '../http/version-mounts.js';

/** Where a request's path leads: an operation, a path without this method, or nowhere. */
export type RouteMatch =
  | {
      kind: 'operation';
      operationId: string;
      /** The version the request named (`v2`), which may be served by an older version's operation. */
      version: string;
      params: Record<string, number | string>;
      /** The path parameters as sent (percent-decoded), for validation. */
      rawParams: Record<string, string>;
    }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface PathRoute {
  pattern: RegExp;
  /** The names of its path parameters (the pattern's named groups). */
  names: string[];
  methods: Map<string, string>;
  /** Static paths (e.g. `/v1/users/me`) win over templated ones (`/v1/users/{userId}`). */
  staticSegments: number;
  /** The first two segments (`/v1/orders`) when both are static. */
  prefix: string | undefined;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Builds the router of a document (`asWritten`: references unresolved, for the path parameters' schemas).
 * A request under a version that does not declare its path and method is served by the newest older
 * version that does (spec §9.2 rule 5: what v2 does not change behaves as in v1); `version` is the one
 * the request named.
 */
export function createRouter(
  asWritten: Record<string, unknown>,
  mounts: VersionMounts = versionMounts(asWritten),
): (method: string, pathname: string) => RouteMatch {
  const routesFor = groupedRoutes(buildRoutes(asWritten));
  return (method, pathname) => {
    const verb = method === 'HEAD' ? 'GET' : method;
    const version = mounts.versionOf(pathname);
    if (!version) return { kind: 'not-found' };
    let allow: Set<string> | undefined;
    for (const candidate of mounts.lineage(version)) {
      const found = matchPath(routesFor, verb, candidate === version ? pathname : mounts.rebase(pathname, candidate));
      if (!found) continue;
      if ('operationId' in found) return operationMatch(found.operationId, version, found.names, found.groups);
      allow = new Set([...(allow ?? []), ...found.allow]);
    }
    if (!allow) return { kind: 'not-found' };
    const methods = [...allow];
    return { kind: 'method-not-allowed', allow: methods.includes('GET') ? [...methods, 'HEAD'] : methods };
  };
}

/**
 * One pass over a path's routes, most static first: the operationId of the first route that matches and
 * takes the method (with its parameter names and values), else the methods of the routes that match.
 */
function matchPath(
  routesFor: (pathname: string) => PathRoute[],
  verb: string,
  pathname: string,
): { operationId: string; names: string[]; groups: Record<string, string> } | { allow: string[] } | undefined {
  let withoutMethod: string[] | undefined;
  for (const route of routesFor(pathname)) {
    const found = route.pattern.exec(pathname);
    if (!found) continue;
    const operationId = route.methods.get(verb);
    if (operationId) return { operationId, names: route.names, groups: found.groups ?? {} };
    withoutMethod = [...(withoutMethod ?? []), ...route.methods.keys()];
  }
  return withoutMethod && { allow: withoutMethod };
}

const DIGITS = /^[0-9]+$/;

function operationMatch(
  operationId: string,
  version: string,
  names: string[],
  groups: Record<string, string>,
): RouteMatch {
  const params: Record<string, number | string> = {};
  const rawParams: Record<string, string> = {};
  for (const name of names) {
    const value = groups[name] as string;
    const numeric = DIGITS.test(value);
    params[name] = numeric ? Number(value) : value;
    rawParams[name] = numeric ? value : decoded(value);
  }
  return { kind: 'operation', operationId, version, params, rawParams };
}

/** One route per path template, static paths first. */
function buildRoutes(document: Record<string, unknown>): PathRoute[] {
  const routes: PathRoute[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const segments = template.split('/').slice(1);
    const textual = textualPathParameters(document, item);
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
    const names = segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1));
    routes.push({ pattern, names, methods, staticSegments: segments.filter((s) => !s.startsWith('{')).length, prefix });
  }
  return routes.sort((a, b) => b.staticSegments - a.staticSegments);
}

/**
 * Routes grouped by their first two segments (`/v1/orders`), so that a request is tested only against its
 * resource's few patterns; a template with a parameter there is tested against every path.
 */
function groupedRoutes(routes: PathRoute[]): (pathname: string) => PathRoute[] {
  const byPrefix = new Map<string, PathRoute[]>();
  const anyPrefix = routes.filter((route) => !route.prefix);
  for (const route of routes) {
    if (!route.prefix) continue;
    byPrefix.set(route.prefix, [...(byPrefix.get(route.prefix) ?? []), route]);
  }
  // Templates with a parameter in the first two segments can match any path: merged in once, in order.
  for (const [prefix, own] of byPrefix) {
    byPrefix.set(
      prefix,
      [...own, ...anyPrefix].sort((a, b) => b.staticSegments - a.staticSegments),
    );
  }
  return (pathname) => byPrefix.get(prefixOf(pathname)) ?? anyPrefix;
}

/** The patterns of the string path parameters of a path item. */
function textualPathParameters(document: Record<string, unknown>, pathItem: Record<string, unknown>) {
  const resolve = (node: Record<string, unknown>): Record<string, unknown> =>
    typeof node.$ref === 'string' ? resolve(atPointer(document, node.$ref)) : node;
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
