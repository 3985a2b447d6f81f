/**
 * The input rules of GraphQL: each `@constraint` of contracts/schema.graphql, compiled by `npm run
 * generate` into generated/graphql/input-rules.json (JSON Schema), is checked by the same validator as the
 * REST contract (src/http/input-rules.ts) before its field resolves, with the rule that no text holds
 * U+0000. A violation makes the field `null` with `VALIDATION_FAILED` and the violations the REST
 * request that sends the same member gets: each argument is checked where its REST twin carries it
 * (below), so the member is named as REST names it and the message is the same text.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import {
  type DocumentNode,
  defaultFieldResolver,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  getArgumentValues,
  Kind,
  parse,
} from 'graphql';
import { type AjvError, rejectNulCharacters, validationError, withContractRules } from '../http/input-rules.js';

type Resolvers = Record<string, Record<string, unknown>>;
type JsonSchema = { [keyword: string]: unknown };
/** Per field coordinate, per argument, the JSON Schema of its value (generated/graphql/input-rules.json). */
export type InputRules = Record<string, Record<string, JsonSchema>>;

/** The part of a REST request that carries a member. */
type Part = 'body' | 'query' | 'headers';

/**
 * Where the REST twin of each argument carries it. A mutation's `input` is the request body and its other
 * arguments body members of their own names (`cancelOrder`'s `reason`, `rateProduct`'s `score`), but
 * `idempotencyKey`, the `Idempotency-Key` header. A list that takes a `filter` (`orders`) is the search
 * body (`POST /v1/orders/search`): the filter's members are its members, and `first`, `after` and `sort`
 * are `/size`, `/cursor` and `/sort`; any other list is a query string (`size`, `cursor`, `sort`).
 */
function placesOf(argumentNames: readonly string[]): (argument: string) => { part: Part; name?: string } {
  const listPart: Part = argumentNames.includes('filter') ? 'body' : 'query';
  const places: Record<string, { part: Part; name?: string }> = {
    input: { part: 'body' },
    filter: { part: 'body' },
    first: { part: listPart, name: 'size' },
    after: { part: listPart, name: 'cursor' },
    sort: { part: listPart, name: 'sort' },
    idempotencyKey: { part: 'headers', name: 'idempotency-key' },
  };
  return (argument) => places[argument] ?? { part: 'body', name: argument };
}

/** Arguments that name the resource a field acts on, as a REST path segment does: not checked here. */
const PATH_ARGUMENTS = new Set(['id', 'orderId', 'productId']);

/** The `ID` marker of the generated schemas: its text is read as the integer it names before the check. */
const ID_MARK = 'x-graphql-id';

/** Reads the generated rules of a checkout. */
export async function readInputRules(projectRoot: string): Promise<InputRules> {
  const file = path.join(projectRoot, 'generated/graphql/input-rules.json');
  return JSON.parse(await readFile(file, 'utf8')) as InputRules;
}

/** Every field of the schema that takes arguments (`Type.field`), with their names: each is checked, if only for U+0000. */
export function fieldsTakingArguments(typeDefs: string | DocumentNode): Map<string, string[]> {
  const document = typeof typeDefs === 'string' ? parse(typeDefs) : typeDefs;
  return new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.OBJECT_TYPE_EXTENSION
        ? (definition.fields ?? [])
            .filter((field) => (field.arguments ?? []).length > 0)
            .map((field): [string, string[]] => [
              `${definition.name.value}.${field.name.value}`,
              (field.arguments ?? []).map((argument) => argument.name.value),
            ])
        : [],
    ),
  );
}

/**
 * The resolver map with every field that takes arguments checked against its rules first. The check runs
 * on a copy of the arguments in which each bounded `ID` is the integer it names, and the resolver is given
 * that copy.
 */
export function withInputRules<T extends Resolvers>(map: T, rules: InputRules, fields: Map<string, string[]>): T {
  const ajv = withContractRules(new Ajv({ allErrors: true, strict: false, verbose: true }));
  const wrapped: Resolvers = Object.fromEntries(Object.entries(map).map(([type, fields]) => [type, { ...fields }]));
  for (const [coordinate, argumentNames] of fields) {
    const [type, field] = coordinate.split('.') as [string, string];
    const check = requestCheck(ajv, rules[coordinate] ?? {}, placesOf(argumentNames));
    wrapped[type] ??= {};
    const resolversOfType = wrapped[type] as Record<string, unknown>;
    const current = resolversOfType[field] as { subscribe?: GraphQLFieldResolver<unknown, unknown> } | undefined;
    if (current?.subscribe) {
      const open = current.subscribe;
      resolversOfType[field] = {
        ...current,
        subscribe: (parent: unknown, args: Args, context: unknown, info: GraphQLResolveInfo) =>
          open(parent, check(subscriptionArguments(info) ?? args), context, info as never),
      };
      continue;
    }
    const resolve = (current ?? defaultFieldResolver) as GraphQLFieldResolver<unknown, unknown>;
    resolversOfType[field] = (parent: unknown, args: Args, context: unknown, info: never) =>
      resolve(parent, check(args), context, info);
  }
  return wrapped as T;
}

type Args = Record<string, unknown>;

/**
 * A subscription field's arguments, read from the operation: graphql-jit hands a subscription's resolver
 * the operation's variables object instead, so `orderUpdated(id: "42")` (a literal) or a variable of
 * another name would not be seen (and the stream would follow every order).
 */
function subscriptionArguments(info: GraphQLResolveInfo | undefined): Args | undefined {
  const node = info?.fieldNodes?.[0];
  const definition = node && info.parentType.getFields()[node.name.value];
  return definition ? getArgumentValues(definition, node, info.variableValues) : undefined;
}

/**
 * Compiles the check of one field: its arguments laid out as the REST request `{body, query, headers}`
 * that carries them, against one schema of that shape. Returns the arguments to resolve with (bounded
 * `ID`s read as integers), or throws the REST request's `VALIDATION_FAILED`.
 */
function requestCheck(
  ajv: Ajv,
  argumentRules: Record<string, JsonSchema>,
  placeOf: ReturnType<typeof placesOf>,
): (args: Args) => Args {
  const parts: Record<Part, { properties: Record<string, JsonSchema> }> = {
    body: { properties: {} },
    query: { properties: {} },
    headers: { properties: {} },
  };
  for (const [argument, schema] of Object.entries(argumentRules)) {
    const { part, name } = placeOf(argument);
    if (name !== undefined) parts[part].properties[name] = schema;
    else {
      const { properties = {}, ...own } = schema as { properties?: Record<string, JsonSchema> };
      Object.assign(parts[part], own, { properties: { ...parts[part].properties, ...properties } });
    }
  }
  const validate: ValidateFunction = ajv.compile({ type: 'object', properties: parts });
  return (args) => {
    const read: Args = {};
    const request: Record<Part, Args> = { body: {}, query: {}, headers: {} };
    for (const [argument, value] of Object.entries(args)) {
      read[argument] = PATH_ARGUMENTS.has(argument) ? value : integerIds(value, argumentRules[argument]);
      if (PATH_ARGUMENTS.has(argument)) continue;
      const { part, name } = placeOf(argument);
      if (name !== undefined) request[part][name] = read[argument];
      else if (read[argument] !== null) Object.assign(request[part], read[argument]);
    }
    // In the order of the REST pipeline: U+0000 while reading the request, then the contract's rules.
    rejectNulCharacters(request);
    if (!validate(request)) throw validationError((validate.errors ?? []) as AjvError[]);
    return read;
  };
}

/** `value` with every bounded `ID` (marked in its schema) that is decimal digits read as that integer. */
function integerIds(value: unknown, schema: JsonSchema | undefined): unknown {
  if (!schema || value === null || value === undefined) return value;
  if (schema[ID_MARK] && typeof value === 'string') return /^-?\d+$/.test(value) ? Number(value) : value;
  if (Array.isArray(value)) return value.map((item) => integerIds(item, schema.items as JsonSchema | undefined));
  if (typeof value !== 'object') return value;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(value as Args).map(([name, member]) => [name, integerIds(member, properties[name])]),
  );
}
