/**
 * The project's OpenAPI breaking-change rules (docs/decisions.md §7), over two parsed documents. It compares what a
 * client depends on: operations, their parameters, request bodies (what the server accepts) and success
 * responses (what the client reads). Adding is never breaking; removing, renaming, retyping and newly
 * required inputs are.
 */
import type { Change } from './report.js';

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/** Resolves local `$ref`s (`#/components/...`), guarding against cycles. */
function resolver(document: Json) {
  return function resolve(node: any, seen: Set<string> = new Set()): any {
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      if (seen.has(node.$ref)) return {};
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((value: any, key: string) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
      const { $ref: _ref, ...siblings } = node;
      return resolve({ ...target, ...siblings }, new Set([...seen, node.$ref]));
    }
    return node;
  };
}

/** A schema reduced to what compatibility depends on. */
interface Shape {
  types: Set<string>;
  properties: Record<string, any>;
  required: Set<string>;
  items?: any;
  enum?: unknown[];
  closed: boolean;
}

function shapeOf(schema: any, resolve: (node: any) => any): Shape {
  const node = resolve(schema) ?? {};
  const shape: Shape = {
    types: new Set(),
    properties: {},
    required: new Set(),
    closed: node.additionalProperties === false,
  };
  const add = (part: any) => {
    const resolved = resolve(part) ?? {};
    const types = Array.isArray(resolved.type) ? resolved.type : resolved.type ? [resolved.type] : [];
    for (const type of types) shape.types.add(type === 'integer' ? 'number' : type);
    Object.assign(shape.properties, resolved.properties ?? {});
    for (const name of resolved.required ?? []) shape.required.add(name);
    if (resolved.items) shape.items = resolved.items;
    if (resolved.enum) shape.enum = [...(shape.enum ?? []), ...resolved.enum];
    if (resolved.additionalProperties === false) shape.closed = true;
    for (const member of resolved.allOf ?? []) add(member);
    for (const member of [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])]) {
      const inner = shapeOf(member, resolve);
      for (const type of inner.types) shape.types.add(type);
      Object.assign(shape.properties, inner.properties);
      if (inner.items) shape.items = inner.items;
    }
  };
  add(node);
  if (shape.types.size === 0 && Object.keys(shape.properties).length > 0) shape.types.add('object');
  return shape;
}

/** Each side's `$ref`s resolve in its own document. */
interface Sides {
  base: (node: any) => any;
  head: (node: any) => any;
}

const typeText = (types: Set<string>) => [...types].sort().join('|') || 'any';

/**
 * Compares a schema in the direction data flows: `response` (server → client: the client relies on every
 * member it was promised) or `request` (client → server: the server must keep accepting what clients send).
 */
function compareSchemas(
  base: any,
  head: any,
  direction: 'request' | 'response',
  where: string,
  item: string,
  sides: Sides,
  out: Change[],
  depth = 0,
): void {
  if (depth > 12) return;
  const before = shapeOf(base, sides.base);
  const after = shapeOf(head, sides.head);
  const push = (message: string, removal = false) =>
    out.push({
      contract: 'openapi',
      item,
      message: `${where}: ${message}`,
      breaking: true,
      ...(removal ? { removal } : {}),
    });

  const lost = [...before.types].filter((type) => !after.types.has(type));
  if (direction === 'response') {
    // The client may now receive a type it does not expect.
    const gained = [...after.types].filter((type) => !before.types.has(type));
    if (before.types.size > 0 && (lost.length > 0 || gained.length > 0)) {
      push(`type changed from ${typeText(before.types)} to ${typeText(after.types)}`);
      return;
    }
  } else if (before.types.size > 0 && after.types.size > 0 && lost.length > 0) {
    push(`no longer accepts ${lost.join(', ')} (was ${typeText(before.types)}, now ${typeText(after.types)})`);
    return;
  }

  if (before.enum && after.enum && direction === 'request') {
    const removed = before.enum.filter((value) => !after.enum?.includes(value));
    if (removed.length > 0) push(`enum value(s) ${removed.join(', ')} no longer accepted`);
  }
  if (before.enum && !after.enum && direction === 'response' && after.types.has('string')) {
    // Widening an enum to any string in a response: clients that switch on values are still fine.
  }

  for (const [name, property] of Object.entries(before.properties)) {
    const next = after.properties[name];
    const path = `${where}.${name}`;
    if (!next) {
      if (direction === 'response') {
        out.push({
          contract: 'openapi',
          item: path,
          message: `${path}: member removed from the response`,
          breaking: true,
          removal: true,
        });
      } else if (after.closed) {
        out.push({
          contract: 'openapi',
          item: path,
          message: `${path}: member removed; requests that send it are now refused`,
          breaking: true,
          removal: true,
        });
      }
      continue;
    }
    if (direction === 'response' && before.required.has(name) && !after.required.has(name)) {
      push(`${name} is no longer always present`);
    }
    compareSchemas(property, next, direction, path, item, sides, out, depth + 1);
  }
  if (direction === 'request') {
    for (const name of after.required) {
      if (!before.required.has(name)) push(`${name} is newly required`);
    }
  }
  if (before.items && after.items) {
    compareSchemas(before.items, after.items, direction, `${where}[]`, item, sides, out, depth + 1);
  }
}

function parametersOf(operation: Json, pathItem: Json, resolve: (node: any) => any): Map<string, Json> {
  const parameters = new Map<string, Json>();
  for (const raw of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = resolve(raw);
    parameters.set(`${parameter.in}:${String(parameter.name).toLowerCase()}`, parameter);
  }
  return parameters;
}

function requestSchema(operation: Json, resolve: (node: any) => any): { schema?: any; required: boolean } {
  const body = resolve(operation.requestBody);
  if (!body) return { required: false };
  const media = body.content?.['application/json'] ?? Object.values(body.content ?? {})[0];
  return { schema: (media as Json | undefined)?.schema, required: body.required === true };
}

function successResponses(operation: Json, resolve: (node: any) => any): Map<string, any> {
  const responses = new Map<string, any>();
  for (const [status, raw] of Object.entries(operation.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    const response = resolve(raw);
    const media = response?.content?.['application/json'] ?? Object.values(response?.content ?? {})[0];
    responses.set(status, (media as Json | undefined)?.schema);
  }
  return responses;
}

/** Lists the changes between two OpenAPI documents; `breaking` marks what docs/decisions.md §7 calls breaking. */
export function diffOpenApi(base: Json, head: Json): Change[] {
  const out: Change[] = [];
  const resolveBase = resolver(base);
  const resolveHead = resolver(head);
  const sides: Sides = { base: resolveBase, head: resolveHead };

  for (const [path, baseItem] of Object.entries<Json>(base.paths ?? {})) {
    const headItem = head.paths?.[path] as Json | undefined;
    for (const method of METHODS) {
      const before = baseItem[method] as Json | undefined;
      if (!before) continue;
      const item = `${method.toUpperCase()} ${path}`;
      const after = headItem?.[method] as Json | undefined;
      if (!after) {
        out.push({
          contract: 'openapi',
          item,
          message: `${item}: operation removed (or its URL or method changed)`,
          breaking: true,
          removal: true,
        });
        continue;
      }

      const beforeParams = parametersOf(before, baseItem, resolveBase);
      const afterParams = parametersOf(after, headItem as Json, resolveHead);
      for (const [key, parameter] of beforeParams) {
        const next = afterParams.get(key);
        const label = `${parameter.in} parameter "${parameter.name}"`;
        if (!next) {
          out.push({
            contract: 'openapi',
            item: `${item} ${parameter.in}:${parameter.name}`,
            message: `${item}: ${label} removed or renamed`,
            breaking: true,
            removal: true,
          });
          continue;
        }
        if (!parameter.required && next.required)
          out.push({ contract: 'openapi', item, message: `${item}: ${label} is now required`, breaking: true });
        const b = { schema: parameter.schema };
        const h = { schema: next.schema };
        compareSchemas(b.schema, h.schema, 'request', `${item} ${label}`, item, sides, out);
      }
      for (const [key, parameter] of afterParams) {
        if (!beforeParams.has(key) && parameter.required) {
          out.push({
            contract: 'openapi',
            item,
            message: `${item}: new required ${parameter.in} parameter "${parameter.name}"`,
            breaking: true,
          });
        } else if (!beforeParams.has(key)) {
          out.push({
            contract: 'openapi',
            item,
            message: `${item}: new optional ${parameter.in} parameter "${parameter.name}"`,
            breaking: false,
          });
        }
      }

      const beforeBody = requestSchema(before, resolveBase);
      const afterBody = requestSchema(after, resolveHead);
      if (!beforeBody.required && afterBody.required)
        out.push({ contract: 'openapi', item, message: `${item}: request body is now required`, breaking: true });
      if (beforeBody.schema && afterBody.schema) {
        compareSchemas(beforeBody.schema, afterBody.schema, 'request', `${item} request body`, item, sides, out);
      } else if (beforeBody.schema && !afterBody.schema) {
        out.push({
          contract: 'openapi',
          item,
          message: `${item}: request body no longer accepted`,
          breaking: true,
          removal: true,
        });
      }

      const beforeResponses = successResponses(before, resolveBase);
      const afterResponses = successResponses(after, resolveHead);
      for (const [status, schema] of beforeResponses) {
        if (!afterResponses.has(status)) {
          out.push({
            contract: 'openapi',
            item,
            message: `${item}: success response ${status} removed`,
            breaking: true,
            removal: true,
          });
          continue;
        }
        if (schema && afterResponses.get(status)) {
          compareSchemas(
            schema,
            afterResponses.get(status),
            'response',
            `${item} ${status} response`,
            item,
            sides,
            out,
          );
        }
      }
    }
  }
  for (const [path, headItem] of Object.entries<Json>(head.paths ?? {})) {
    for (const method of METHODS) {
      if (headItem[method] && !base.paths?.[path]?.[method]) {
        out.push({
          contract: 'openapi',
          item: `${method.toUpperCase()} ${path}`,
          message: `${method.toUpperCase()} ${path}: operation added`,
          breaking: false,
        });
      }
    }
  }
  return out;
}
