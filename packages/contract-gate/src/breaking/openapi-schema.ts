/**
 * Schema rules of the OpenAPI gate, applied in the direction data flows. A `response` schema is a promise
 * to the client: removing a member, making it optional or nullable, changing its type or adding a value
 * to a closed enum breaks a reader. A `request` schema is what the server accepts: a lost type or enum
 * value, a newly required member, a closed object, a tighter bound, pattern or format, or a changed
 * default breaks a writer.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Change } from './model.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
export type Json = Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
export type Resolve = (node: any) => any;
export type Direction = 'request' | 'response';

/** Resolves local `$ref`s (`#/components/...`, JSON-pointer escapes), merging sibling keywords, guarding cycles. */
export function resolver(document: Json): Resolve {
  const lookup = (ref: string) =>
    ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .reduce((value: Json | undefined, key) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  return function resolve(node, seen: Set<string> = new Set()) {
    if (!node || typeof node !== 'object' || typeof node.$ref !== 'string') return node;
    if (!node.$ref.startsWith('#')) throw new Error(`external $ref ${node.$ref} is not supported by the gate`);
    if (seen.has(node.$ref)) return {};
    const target = lookup(node.$ref);
    if (target === undefined) throw new Error(`$ref ${node.$ref} does not resolve`);
    const { $ref: _ref, ...siblings } = node;
    return resolve({ ...target, ...siblings }, new Set([...seen, node.$ref]));
  };
}

const UPPER = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;
const EXACT = ['pattern', 'format', 'multipleOf', 'const'] as const;

/** A schema reduced to what compatibility depends on. */
interface Shape {
  types: Set<string>;
  properties: Json;
  required: Set<string>;
  items?: unknown;
  values?: unknown;
  enum?: unknown[];
  /** `x-extensible-enum`: values may be added in responses. */
  open: boolean;
  closed: boolean;
  keywords: Json;
}

function typesOf(node: Json): string[] {
  const types: string[] = Array.isArray(node.type) ? [...node.type] : node.type ? [node.type] : [];
  if (node.nullable === true) types.push('null');
  const values = node.enum ?? (node.const !== undefined ? [node.const] : undefined);
  if (types.length === 0 && Array.isArray(values)) {
    for (const value of values)
      types.push(value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value);
  }
  return types;
}

function shapeOf(schema: unknown, resolve: Resolve): Shape {
  const shape: Shape = {
    types: new Set(),
    properties: {},
    required: new Set(),
    open: false,
    closed: false,
    keywords: {},
  };
  const add = (part: unknown, top: boolean) => {
    const node: Json = resolve(part) ?? {};
    for (const type of typesOf(node)) shape.types.add(type);
    Object.assign(shape.properties, node.properties ?? {});
    for (const name of node.required ?? []) shape.required.add(name);
    if (node.items) shape.items = node.items;
    if (node.additionalProperties === false) shape.closed = true;
    else if (node.additionalProperties && typeof node.additionalProperties === 'object')
      shape.values = node.additionalProperties;
    const values = Array.isArray(node['x-extensible-enum']) ? node['x-extensible-enum'] : node.enum;
    if (Array.isArray(values)) shape.enum = [...(shape.enum ?? []), ...values];
    if (node['x-extensible-enum']) shape.open = true;
    if (top) {
      for (const key of [...UPPER, ...LOWER, ...EXACT, 'uniqueItems', 'default'])
        if (node[key] !== undefined) shape.keywords[key] = node[key];
    }
    for (const member of node.allOf ?? []) add(member, top);
    for (const member of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) add(member, false);
  };
  add(schema, true);
  if (shape.types.size === 0 && Object.keys(shape.properties).length > 0) shape.types.add('object');
  return shape;
}

/** Whether every value of type `type` is also of one of `types` (an integer is a number). */
const covered = (type: string, types: Set<string>) => types.has(type) || (type === 'integer' && types.has('number'));
const typeText = (types: Set<string>) => [...types].sort().join('|') || 'any';
const refOf = (node: unknown) => (node as Json | undefined)?.$ref as string | undefined;
const componentName = (ref?: string) => /^#\/components\/schemas\/([^/]+)$/.exec(ref ?? '')?.[1];

/** Shared state of one document comparison: resolvers, findings, and component pairs already compared. */
export interface SchemaContext {
  base: Resolve;
  head: Resolve;
  out: Change[];
  done: Set<string>;
}

/**
 * Compares two schemas. `item` names the place (a component such as `Order`, or an operation's response);
 * a `$ref` to a named component renames it, so one change to a shared schema is reported once, by name.
 */
export function compareSchemas(
  base: unknown,
  head: unknown,
  direction: Direction,
  item: string,
  where: string,
  context: SchemaContext,
  depth = 0,
): void {
  if (depth > 24) return;
  const named = componentName(refOf(base));
  if (named && named === componentName(refOf(head))) {
    const key = `${direction}|${refOf(base)}|${refOf(head) ?? JSON.stringify(head)}`;
    if (context.done.has(key)) return;
    context.done.add(key);
    item = named;
  }
  const before = shapeOf(base, context.base);
  const after = shapeOf(head, context.head);
  const push = (rule: string, text: string, extra: Partial<Change> = {}): void => {
    context.out.push({
      contract: 'openapi',
      item,
      rule,
      message: `\`${item}\` (${direction} of ${where}): ${text}`,
      breaking: true,
      ...extra,
    });
  };

  if (direction === 'response') {
    const gained = [...after.types].filter((type) => !covered(type, before.types));
    if (before.types.size > 0 && after.types.size === 0)
      push('response-type-changed', `is now of any type (was ${typeText(before.types)})`);
    else if (gained.includes('null') && gained.length === 1) push('response-member-nullable', 'may now be null');
    else if (before.types.size > 0 && gained.length > 0) {
      push('response-type-changed', `type changed from ${typeText(before.types)} to ${typeText(after.types)}`);
      return;
    }
    compareResponseEnum(before, after, push);
  } else {
    const lost = [...before.types].filter((type) => after.types.size > 0 && !covered(type, after.types));
    if (before.types.size === 0 && after.types.size > 0)
      push('request-type-narrowed', `now accepts only ${typeText(after.types)}`);
    else if (lost.length > 0) {
      push(
        'request-type-narrowed',
        `no longer accepts ${lost.join(', ')} (was ${typeText(before.types)}, now ${typeText(after.types)})`,
      );
      return;
    }
    compareRequestKeywords(before, after, push);
  }

  for (const [name, property] of Object.entries(before.properties)) {
    const next = after.properties[name];
    const member = `${item}.${name}`;
    if (next === undefined) {
      if (direction === 'response' || after.closed)
        context.out.push({
          contract: 'openapi',
          item: member,
          rule: direction === 'response' ? 'response-member-removed' : 'request-member-removed',
          message: `\`${member}\` (${direction} of ${where}): member removed or renamed${direction === 'request' ? '; requests that send it are now refused' : ''}`,
          breaking: true,
          removal: true,
        });
      continue;
    }
    if (direction === 'response' && before.required.has(name) && !after.required.has(name))
      push('response-member-optional', `\`${name}\` is no longer always present`);
    compareSchemas(property, next, direction, member, where, context, depth + 1);
  }
  for (const name of Object.keys(after.properties)) {
    if (!(name in before.properties))
      context.out.push({
        contract: 'openapi',
        item: `${item}.${name}`,
        rule: 'member-added',
        message: `\`${item}.${name}\` (${direction} of ${where}): member added`,
        breaking: false,
      });
  }
  if (direction === 'request') {
    for (const name of after.required)
      if (!before.required.has(name)) push('request-member-required', `\`${name}\` is newly required`);
    if (after.closed && !before.closed)
      push('request-closed', 'no longer accepts members it does not list (additionalProperties: false)');
  }
  if (before.items && after.items)
    compareSchemas(before.items, after.items, direction, `${item}[]`, where, context, depth + 1);
  if (before.values && after.values)
    compareSchemas(before.values, after.values, direction, `${item}{}`, where, context, depth + 1);
}

type Push = (rule: string, text: string, extra?: Partial<Change>) => void;

function compareResponseEnum(before: Shape, after: Shape, push: Push): void {
  if (!before.enum || before.open) return;
  if (!after.enum) {
    push('response-enum-value-added', 'was a closed enum and may now carry any value');
    return;
  }
  const added = after.enum.filter((value) => !before.enum?.includes(value));
  if (added.length > 0)
    push(
      'response-enum-value-added',
      `new value(s) ${added.join(', ')} in a closed enum (not declared \`x-extensible-enum\`)`,
    );
}

function compareRequestKeywords(before: Shape, after: Shape, push: Push): void {
  // The values still accepted travel as data (`keyword: 'enum'`), so impact finds who sent any other.
  const accepted = { keyword: 'enum', value: after.enum };
  if (before.enum && after.enum) {
    const removed = before.enum.filter((value) => !after.enum?.includes(value));
    if (removed.length > 0)
      push('request-enum-value-removed', `value(s) ${removed.join(', ')} no longer accepted`, accepted);
  } else if (!before.enum && after.enum)
    push('request-enum-value-removed', `now accepts only ${after.enum.join(', ')}`, accepted);
  const b = before.keywords;
  const h = after.keywords;
  const narrowed = (key: string, text: string, extra?: Partial<Change>) =>
    push('request-constraint-narrowed', `${key} ${text}`, { keyword: key, value: h[key], ...extra });
  // A new or lowered upper bound (OWASP API4: every input bounded) passes when a `### Security` bullet names it.
  for (const key of UPPER) {
    if (typeof h[key] === 'boolean') {
      if (h[key] && !b[key]) narrowed(key, 'is now true');
    } else if (h[key] !== undefined && (b[key] === undefined || h[key] < b[key]))
      narrowed(key, `lowered from ${b[key] ?? 'none'} to ${h[key]}`, { acknowledge: 'Security' });
  }
  for (const key of LOWER) {
    if (typeof h[key] === 'boolean') {
      if (h[key] && !b[key]) narrowed(key, 'is now true');
    } else if (h[key] !== undefined && (b[key] === undefined || h[key] > b[key]))
      narrowed(key, `raised from ${b[key] ?? 'none'} to ${h[key]}`);
  }
  for (const key of EXACT) {
    if (h[key] !== undefined && !isDeepStrictEqual(h[key], b[key]))
      narrowed(key, `${b[key] === undefined ? 'added' : 'changed'}: ${JSON.stringify(h[key])}`);
  }
  if (h.uniqueItems === true && b.uniqueItems !== true) narrowed('uniqueItems', 'is now required');
  if (b.default !== undefined && !isDeepStrictEqual(b.default, h.default))
    push(
      'request-default-changed',
      `default changed from ${JSON.stringify(b.default)} to ${JSON.stringify(h.default)}: a request that leaves it out now means something else`,
    );
}
