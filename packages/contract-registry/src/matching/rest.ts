/**
 * Which registry items a REST request uses (docs/decisions.md §7): its operation, a parameter or body
 * member it sent, a property its 2xx answer can carry (with the resource member that holds it, which
 * `fields=` names, and where it sits in the answer). Read from the registry and the contract once, at
 * start; shared by the REST transport and the contract scripts (lint, impact, the gate's registry ids).
 * What a use is, is the core's deprecation policy (src/core/lifecycle/deprecation-policy.ts).
 */
import type { DeprecationRegistry, RegistryItem, RestMatch } from '../registry.js';
import { atPointer } from './json-pointer.js';

type Json = Record<string, unknown>;

interface BodyItem {
  path: string[];
  item: RegistryItem;
}

interface ParameterItem {
  /** `query`, `header` or `path` (a path parameter is part of every request of its operation). */
  in: string;
  /** As sent: a header name in lower case. */
  name: string;
  item: RegistryItem;
}

/** A registry property a 2xx answer of an operation can carry. */
export interface ResponseItem {
  item: RegistryItem;
  /** The top-level member of the resource that holds it (what `fields=` names). */
  member: string;
  /** Where it sits in the answer (`*` = each array item), for every 2xx answer shape of the operation. */
  paths: string[][];
}

interface OperationItems {
  operation: RegistryItem[];
  parameters: ParameterItem[];
  body: BodyItem[];
  response: ResponseItem[];
}

/** The registry items of one contract, by operation. */
export interface RestMatcher {
  /** Items the request sends: its version, its operation, the parameters and body members it sent. */
  sent(
    operationId: string,
    request: {
      query: Record<string, string>;
      header(name: string): string | undefined;
      body: unknown;
      /** The version the request named (`v1`): a deprecated version is used by every request under it. */
      version?: string;
    },
  ): RegistryItem[];
  /** The deprecated versions that `version` replaces: a request under it is a replacement use of each. */
  replacedBy(version: string): readonly RegistryItem[];
  /** The properties a 2xx answer of the operation can carry. */
  received(operationId: string): readonly ResponseItem[];
  /** The operations a request of which can use the item: send it, or receive it in its answer. */
  operationsUsing(id: string): string[];
  /** The operations whose request can send the item (itself, a parameter or a body member). */
  operationsSending(id: string): string[];
  /** Where a body member item sits in the operation's request body (`*` = each array item). */
  bodyPath(operationId: string, item: RegistryItem): readonly string[] | undefined;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Indexes the registry's REST items by operation, following the contract's schemas. */
export function restMatcher(registry: DeprecationRegistry, document: Json): RestMatcher {
  const byOperation = indexOperations(
    registry.items.filter((item) => item.protocol === 'rest'),
    document,
  );
  const versions = registry.items.filter((item) => item.protocol === 'rest' && item.match.on === 'version');
  const versionOf = (item: RegistryItem) => (item.match as { version: string }).version;
  return {
    replacedBy: (version) => versions.filter((item) => item.replacement === version),
    sent(operationId, { query, header, body, version }) {
      const entry = byOperation.get(operationId);
      const named = versions.filter((item) => versionOf(item) === version);
      if (!entry) return named;
      const uses: RegistryItem[] = [...named, ...entry.operation];
      // The operation's few registered parameters are looked up, not every parameter the request sent.
      for (const parameter of entry.parameters) {
        const sent =
          parameter.in === 'path' ||
          (parameter.in === 'query' && Object.hasOwn(query, parameter.name)) ||
          (parameter.in === 'header' && header(parameter.name) !== undefined);
        if (sent) uses.push(parameter.item);
      }
      for (const { path, item } of entry.body) {
        if (present(body, path)) uses.push(item);
      }
      return uses;
    },
    received: (operationId) => byOperation.get(operationId)?.response ?? [],
    operationsUsing: (id) => operationsWith(byOperation, id, true),
    bodyPath: (operationId, item) =>
      byOperation.get(operationId)?.body.find((entry) => entry.item.id === item.id)?.path,
    operationsSending: (id) => operationsWith(byOperation, id, false),
  };
}

/** The operations whose requests send the item (and, with `answers`, whose answers can carry it). */
function operationsWith(byOperation: Map<string, OperationItems>, id: string, answers: boolean): string[] {
  const holds = (entry: OperationItems) =>
    [
      ...entry.operation,
      ...entry.parameters.map((parameter) => parameter.item),
      ...entry.body.map((body) => body.item),
      ...(answers ? entry.response.map((response) => response.item) : []),
    ].some((item) => item.id === id);
  return [...byOperation].filter(([, entry]) => holds(entry)).map(([operationId]) => operationId);
}

/** The contract's schemas as far as the registry's properties go. */
export interface Reachability {
  resolve(ref: string): Json;
  /** Whether a schema is the list envelope (`{items, hasNext, …}`). */
  isListEnvelope(schema: Json): boolean;
  /** Every registry property reachable from a schema, with its path in an instance (`*` = each array item). */
  reachable(schema: Json): BodyItem[];
}

function indexOperations(rest: RegistryItem[], document: Json): Map<string, OperationItems> {
  const reach = reachability(rest, document);
  const byOperation = new Map<string, OperationItems>();
  for (const pathItem of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      const operationId = operation?.operationId as string | undefined;
      if (operation && operationId) byOperation.set(operationId, operationItems(rest, operationId, operation, reach));
    }
  }
  return byOperation;
}

/** The items one operation can use: itself, its parameters, its body members, its 2xx answers' properties. */
function operationItems(rest: RegistryItem[], operationId: string, operation: Json, reach: Reachability) {
  const entry: OperationItems = { operation: [], parameters: [], body: [], response: [] };
  for (const item of rest) {
    const match = item.match as RestMatch;
    if (match.on === 'operation' && match.operationId === operationId) entry.operation.push(item);
    if (match.on === 'parameter' && match.operationId === operationId) {
      entry.parameters.push({
        in: match.in,
        name: match.in === 'header' ? match.name.toLowerCase() : match.name,
        item,
      });
    }
    if (match.on === 'body' && match.operationId === operationId) entry.body.push({ path: match.path, item });
  }
  for (const media of Object.values(((operation.requestBody as Json)?.content ?? {}) as Record<string, Json>)) {
    entry.body.push(...reach.reachable((media.schema ?? {}) as Json));
  }
  for (const [status, raw] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
    if (!status.startsWith('2')) continue;
    const response = typeof raw.$ref === 'string' ? reach.resolve(raw.$ref) : raw;
    for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
      const schema = (media.schema ?? {}) as Json;
      const envelope = reach.isListEnvelope(schema);
      for (const { item, path } of reach.reachable(schema)) {
        // A list envelope's items are the resources (`items.*.member`); else the answer is the resource.
        const member = (envelope ? path[2] : path[0]) as string;
        const known = entry.response.find((response) => response.item === item);
        if (known) known.paths.push(path);
        else entry.response.push({ item, member, paths: [path] });
      }
    }
  }
  entry.body = entry.body.filter(
    (candidate, index) => entry.body.findIndex((other) => other.item === candidate.item) === index,
  );
  return entry;
}

/** Where the registry's REST properties sit in instances of the contract's schemas. */
export function reachability(rest: RegistryItem[], document: Json): Reachability {
  const properties = new Map<string, RegistryItem>();
  for (const item of rest) {
    const match = item.match as RestMatch;
    if (match.on === 'property') properties.set(`${match.schema}.${match.path.join('.')}`, item);
  }
  const resolve = (ref: string): Json => atPointer(document, ref);
  const reachable = (schema: Json, path: string[], owner: string | undefined, seen: Set<string>): BodyItem[] => {
    if (path.length > 8) return [];
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop() as string;
      if (seen.has(name)) return [];
      return reachable(resolve(schema.$ref), path, name, new Set([...seen, name]));
    }
    const found: BodyItem[] = [];
    for (const part of ['allOf', 'oneOf', 'anyOf'] as const) {
      for (const sub of (schema[part] ?? []) as Json[]) found.push(...reachable(sub, path, owner, seen));
    }
    if (schema.items) found.push(...reachable(schema.items as Json, [...path, '*'], undefined, seen));
    for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      const item = owner ? properties.get(`${owner}.${name}`) : undefined;
      if (item) found.push({ path: [...path, name], item });
      found.push(...reachable(sub, [...path, name], undefined, seen));
    }
    return found;
  };
  const isListEnvelope = (schema: Json): boolean => {
    const resolved = typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
    const properties = (resolved.properties ?? {}) as Json;
    return 'items' in properties && 'hasNext' in properties;
  };
  return { resolve, isListEnvelope, reachable: (schema) => reachable(schema, [], undefined, new Set()) };
}

/** Whether a member at `path` was sent (`*` = in any array item). */
function present(value: unknown, path: string[]): boolean {
  if (path.length === 0) return value !== undefined;
  if (value === null || typeof value !== 'object') return false;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') return Array.isArray(value) && value.some((entry) => present(entry, rest));
  return Object.hasOwn(value, head) && present((value as Json)[head], rest);
}
