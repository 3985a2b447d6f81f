/**
 * Which registry items a REST request uses, and the signals it gets for them (spec §9.2 rule 7): an
 * operation, a parameter it sent, a body member it sent, a property its 2xx answer carries. Deprecated
 * items put `Deprecation` (RFC 9745, `@<unix seconds>`), `Sunset` (RFC 8594) and
 * `Link: </docs/deprecations#<id>>; rel="deprecation"` on the answer; watched items are only counted.
 * Everything is read from the registry and the contract, once, at start.
 */
import type { BrownoutWindow } from '../core/brownouts.js';
import {
  brownoutHeader,
  type DeprecationRegistry,
  type RegistryItem,
  type RestMatch,
  signalOf,
} from '../core/deprecation-registry.js';
import type { UsageKind } from '../core/ports/usage.js';
import { atPointer } from './json-pointer.js';

type Json = Record<string, unknown>;

/** An item used by a request, and whether it counts as a use of its replacement. */
export interface ItemUse {
  item: RegistryItem;
  kind: UsageKind;
}

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

interface OperationItems {
  operation: RegistryItem[];
  parameters: ParameterItem[];
  body: BodyItem[];
  response: RegistryItem[];
}

/** The REST deprecation signals of one contract. */
export interface RestDeprecations {
  /** Items the request uses: its operation, parameters and body members. */
  requestUses(
    operationId: string,
    sent: { query: Record<string, string>; header(name: string): string | undefined; body: unknown },
  ): ItemUse[];
  /** Items a 2xx answer carries (properties of its schemas), with `include` deciding replacement uses. */
  responseUses(operationId: string, include: Set<string>): ItemUse[];
  /** The operations a request of which can use the item (so can be refused in its brownout windows). */
  operationsUsing(id: string): string[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Indexes the registry's REST items by operation, following the contract's schemas. */
export function restDeprecations(registry: DeprecationRegistry, document: Json): RestDeprecations {
  const byOperation = indexOperations(
    registry.items.filter((item) => item.protocol === 'rest'),
    document,
  );
  return {
    requestUses(operationId, { query, header, body }) {
      const entry = byOperation.get(operationId);
      if (!entry) return [];
      const uses: ItemUse[] = entry.operation.map((item) => ({ item, kind: 'use' }));
      // The operation's few registered parameters are looked up, not every parameter the request sent.
      for (const parameter of entry.parameters) {
        const sent =
          parameter.in === 'path' ||
          (parameter.in === 'query' && Object.hasOwn(query, parameter.name)) ||
          (parameter.in === 'header' && header(parameter.name) !== undefined);
        if (sent) uses.push({ item: parameter.item, kind: 'use' });
      }
      for (const { path, item } of entry.body) {
        if (present(body, path)) uses.push({ item, kind: 'use' });
      }
      return uses;
    },
    operationsUsing(id) {
      const uses = (entry: OperationItems) =>
        [
          ...entry.operation,
          ...entry.parameters.map((parameter) => parameter.item),
          ...entry.body.map((body) => body.item),
          ...entry.response,
        ].some((item) => item.id === id);
      return [...byOperation].filter(([, entry]) => uses(entry)).map(([operationId]) => operationId);
    },
    responseUses(operationId, include) {
      const entry = byOperation.get(operationId);
      if (!entry) return [];
      return entry.response.map((item) => ({
        item,
        kind: item.replacement && include.has(item.replacement) ? 'replacement' : 'use',
      }));
    },
  };
}

/** The contract's schemas as far as the registry's properties go. */
interface Reachability {
  resolve(ref: string): Json;
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
      for (const { item } of reach.reachable((media.schema ?? {}) as Json)) {
        if (!entry.response.includes(item)) entry.response.push(item);
      }
    }
  }
  entry.body = entry.body.filter(
    (candidate, index) => entry.body.findIndex((other) => other.item === candidate.item) === index,
  );
  return entry;
}

function reachability(rest: RegistryItem[], document: Json): Reachability {
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
  return { resolve, reachable: (schema) => reachable(schema, [], undefined, new Set()) };
}

/** Whether a member at `path` was sent (`*` = in any array item). */
function present(value: unknown, path: string[]): boolean {
  if (path.length === 0) return value !== undefined;
  if (value === null || typeof value !== 'object') return false;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') return Array.isArray(value) && value.some((entry) => present(entry, rest));
  return Object.hasOwn(value, head) && present((value as Json)[head], rest);
}

/**
 * The signal headers for the deprecated items among `uses` (none for watched items), with the brownout
 * windows announced for them in `Brownout`.
 */
export function signalHeaders(
  uses: ItemUse[],
  announced: (id: string) => BrownoutWindow[] = () => [],
): Record<string, string> {
  const items = uses.filter((use) => use.kind === 'use').map((use) => use.item);
  const signal = signalOf(items);
  if (!signal) return {};
  const brownout = brownoutHeader(items, announced);
  return {
    ...(signal.deprecation ? { Deprecation: signal.deprecation } : {}),
    ...(signal.sunset ? { Sunset: signal.sunset } : {}),
    Link: signal.links.map((link) => `<${link}>; rel="deprecation"; type="text/html"`).join(', '),
    ...(brownout ? { Brownout: brownout } : {}),
  };
}
