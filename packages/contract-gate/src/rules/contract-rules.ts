/**
 * The input rules each contract states, per member, in one vocabulary (JSON Schema's keywords), so that
 * the rules of twins can be compared across contracts and the rules of one member across releases:
 * REST's JSON Schema, GraphQL's `@constraint` (and `!` for required), protovalidate's `buf.validate`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLInputField,
  isInputObjectType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { directiveRules } from './graphql-rules.js';

/** A member's rules: JSON Schema keywords (`minLength`, `maximum`, `pattern`, …) and `required`. */
export type Rules = Record<string, unknown>;

/** The keywords compared; structure (`type`, `properties`, `items`) is each contract's own. */
export const RULE_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'required',
] as const;

/** How a REST `Id` (a positive integer) is written as text: what the order core has always read. */
export const ID_TEXT_PATTERN = '^[1-9][0-9]{0,15}$';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML and JSON are untyped by nature
type Json = Record<string, any>;

function pick(schema: Json): Rules {
  const rules: Rules = {};
  for (const keyword of RULE_KEYWORDS)
    if (schema[keyword] !== undefined && keyword !== 'required') rules[keyword] = schema[keyword];
  if (rules.format === 'int64' || rules.format === 'int32') delete rules.format;
  return rules;
}

/** The rules of every GraphQL input field (`CreateOrderInput.note`) and argument (`Query.orders.first`). */
export function graphqlRules(sdl: string): Map<string, Rules> {
  const schema = buildSchema(sdl);
  const out = new Map<string, Rules>();
  const add = (item: string, member: GraphQLArgument | GraphQLInputField) => {
    const rules: Rules = {};
    const own = directiveRules(member);
    for (const keyword of RULE_KEYWORDS) if (own[keyword] !== undefined) rules[keyword] = own[keyword];
    if (isNonNullType(member.type) && member.defaultValue === undefined) rules.required = true;
    out.set(item, rules);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isInputObjectType(type))
      for (const field of Object.values(type.getFields())) add(`${type.name}.${field.name}`, field);
    if (isObjectType(type))
      for (const field of Object.values(type.getFields()))
        for (const argument of field.args) add(`${type.name}.${field.name}.${argument.name}`, argument);
  }
  return out;
}

/**
 * The rules of every REST request schema member (`OrderCreate.note`), schema (`Id`) and shared parameter
 * (`Size`): `$ref`s followed, a list's item rules merged into its own (as `@constraint` states them on a
 * list), formats of an `anyOf` joined (`date | date-time`).
 */
export function openapiRules(document: Json): Map<string, Rules> {
  const components = document.components ?? {};
  const resolve = (node: Json | undefined, depth = 0): Json => {
    if (!node || depth > 8 || typeof node.$ref !== 'string') return node ?? {};
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((value: Json | undefined, key: string) => value?.[key], document);
    const { $ref: _ref, ...siblings } = node;
    return resolve({ ...target, ...siblings }, depth + 1);
  };
  const rulesOf = (node: Json | undefined): Rules => {
    const schema = resolve(node);
    const rules = pick(schema);
    const formats = (schema.anyOf ?? schema.oneOf ?? [])
      .map((branch: Json) => resolve(branch).format)
      .filter((format: unknown): format is string => typeof format === 'string');
    if (formats.length > 1) rules.format = formats.join(' | ');
    if (formats.length > 0) {
      const lengths = (schema.anyOf ?? schema.oneOf).map((branch: Json) => resolve(branch).maxLength);
      if (lengths.every((length: unknown) => length === lengths[0] && length !== undefined))
        rules.maxLength = lengths[0];
    }
    if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'))) {
      Object.assign(rules, pick(resolve(schema.items)));
    }
    return rules;
  };
  const out = new Map<string, Rules>();
  for (const [name, schema] of Object.entries<Json>(components.schemas ?? {})) {
    out.set(name, rulesOf(schema));
    const resolved = resolve(schema);
    const required = new Set<string>(resolved.required ?? []);
    for (const [member, property] of Object.entries<Json>(resolved.properties ?? {})) {
      const rules = rulesOf(property);
      if (required.has(member)) rules.required = true;
      out.set(`${name}.${member}`, rules);
    }
  }
  for (const [name, parameter] of Object.entries<Json>(components.parameters ?? {})) {
    const rules = rulesOf(parameter.schema);
    if (parameter.required) rules.required = true;
    out.set(name, rules);
  }
  return out;
}

/** protovalidate's rule names, and the JSON Schema keyword each states (integer bounds made inclusive). */
function protoFieldRules(options: Json | undefined): Rules {
  const field = options?.['[buf.validate.field]'] as Json | undefined;
  if (!field) return {};
  const rules: Rules = {};
  if (field.required) rules.required = true;
  const text = field.string as Json | undefined;
  if (text) {
    if (text.minLen !== undefined) rules.minLength = Number(text.minLen);
    if (text.maxLen !== undefined) rules.maxLength = Number(text.maxLen);
    if (text.pattern !== undefined) rules.pattern = text.pattern;
  }
  const list = field.repeated as Json | undefined;
  if (list) {
    if (list.minItems !== undefined) rules.minItems = Number(list.minItems);
    if (list.maxItems !== undefined) rules.maxItems = Number(list.maxItems);
  }
  for (const kind of ['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64']) {
    const number = field[kind] as Json | undefined;
    if (!number) continue;
    if (number.gt !== undefined) rules.minimum = Number(number.gt) + 1;
    if (number.gte !== undefined) rules.minimum = Number(number.gte);
    if (number.lt !== undefined) rules.maximum = Number(number.lt) - 1;
    if (number.lte !== undefined) rules.maximum = Number(number.lte);
    if (number.in !== undefined) rules.in = number.in.map(Number);
    if (number.notIn !== undefined) rules.notIn = number.notIn.map(Number);
  }
  return rules;
}

/**
 * The rules of every field of the proto packages under a contracts directory's `inventory/`, by message
 * and field (`ReserveRequest.sku`; with several directories, `<prefix>/` first as the batch names them).
 * `buf build` reads the options as protovalidate defines them (buf/validate/ beside inventory/).
 */
export function protoRules(contractsDir: string): Map<string, Rules> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'proto-rules-'));
  try {
    cpSync(path.join(contractsDir, 'inventory'), path.join(scratch, 'inventory'), { recursive: true });
    if (existsSync(path.join(contractsDir, 'buf')))
      cpSync(path.join(contractsDir, 'buf'), path.join(scratch, 'buf'), { recursive: true });
    return protoRulesOfModule(scratch, 'inventory');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The field rules of the files under `paths` of a buf module at `moduleDir`, keyed as `[dir/]Message.field`. */
export function protoRulesOfModule(moduleDir: string, ...paths: string[]): Map<string, Rules> {
  if (!existsSync(path.join(moduleDir, 'buf.yaml'))) writeFileSync(path.join(moduleDir, 'buf.yaml'), 'version: v2\n');
  const only = paths.flatMap((p) => ['--path', path.join(moduleDir, p)]);
  const json = execFileSync('buf', ['build', moduleDir, ...only, '-o', '-#format=json'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = new Map<string, Rules>();
  for (const file of (JSON.parse(json) as Json).file ?? []) {
    const name = file.name as string;
    if (name.startsWith('buf/') || name.startsWith('google/')) continue;
    const prefix = /^(c\d+)\//.exec(name)?.[1];
    const walk = (messages: Json[] | undefined, outer: string) => {
      for (const message of messages ?? []) {
        const messageName = outer ? `${outer}.${message.name}` : message.name;
        for (const field of message.field ?? []) {
          out.set(`${prefix ? `${prefix}/` : ''}${messageName}.${field.name}`, protoFieldRules(field.options));
        }
        walk(message.nestedType, messageName);
      }
    };
    walk(file.messageType, '');
  }
  return out;
}

/** The rules of an item (`graphql:CreateOrderInput.note`) in contracts read as their rule maps. */
export interface RuleBook {
  openapi: Map<string, Rules>;
  graphql: Map<string, Rules>;
  proto: Map<string, Rules>;
}

/**
 * The rules of a `contract:item` reference, as they read in another contract's terms where the two
 * represent a value differently: a REST `Id` twinned with a proto string is its decimal text.
 */
export function rulesOf(book: RuleBook, reference: string, as: 'openapi' | 'graphql' | 'proto'): Rules | undefined {
  const [contract, item] = reference.split(/:(.*)/s) as ['openapi' | 'graphql' | 'proto', string];
  const rules = book[contract]?.get(item);
  if (!rules) return undefined;
  if (contract === 'openapi' && as === 'proto' && item === 'Id') return { pattern: ID_TEXT_PATTERN };
  return rules;
}
