/**
 * The input rules of the GraphQL contract as JSON Schema: each `@constraint` of contracts/schema.graphql,
 * on an argument or on a field of an input object reached from one, turned into the JSON Schema keywords
 * the REST contract states for the same member, so that one validator (ajv, src/http/input-rules.ts)
 * checks both contracts alike. Written to generated/graphql/input-rules.json by `npm run generate`.
 */
import {
  type ConstDirectiveNode,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type ValueNode,
} from 'graphql';

/** A JSON Schema, as far as the rules need one. */
export type JsonSchema = { [keyword: string]: unknown };

/** Per field coordinate (`Mutation.createOrder`), per argument, the JSON Schema of its value. */
export type GraphqlInputRules = Record<string, Record<string, JsonSchema>>;

/** The directive's arguments and the JSON Schema keyword each one is. */
const KEYWORD_OF: Record<string, string> = {
  minLength: 'minLength',
  maxLength: 'maxLength',
  pattern: 'pattern',
  format: 'format',
  min: 'minimum',
  max: 'maximum',
  multipleOf: 'multipleOf',
  minItems: 'minItems',
  maxItems: 'maxItems',
  uniqueItems: 'uniqueItems',
  minProperties: 'minProperties',
};
/** Keywords of the list itself; every other one applies to each of its values. */
const LIST_KEYWORDS = new Set(['minItems', 'maxItems', 'uniqueItems']);

/** Marks an `ID` whose integer value the rules bound: the validator reads the text as that integer first. */
export const ID_MARK = 'x-graphql-id';

/** The rules of every argument that carries one, directly or in an input object it takes. */
export function graphqlInputRules(schema: GraphQLSchema): GraphqlInputRules {
  const rules: GraphqlInputRules = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const args: Record<string, JsonSchema> = {};
      for (const argument of field.args) {
        const argSchema = valueSchema(argument.type, directiveRules(argument), new Set());
        if (argSchema) args[argument.name] = argSchema;
      }
      if (Object.keys(args).length > 0) rules[`${type.name}.${field.name}`] = args;
    }
  }
  return rules;
}

/** The `@constraint` of an argument or input field as JSON Schema keywords. */
export function directiveRules(member: GraphQLArgument | GraphQLInputField): JsonSchema {
  const directive = member.astNode?.directives?.find((node) => node.name.value === 'constraint');
  return directive ? keywordsOf(directive) : {};
}

function keywordsOf(directive: ConstDirectiveNode): JsonSchema {
  const keywords: JsonSchema = {};
  for (const argument of directive.arguments ?? []) {
    const keyword = KEYWORD_OF[argument.name.value];
    if (!keyword) throw new Error(`@constraint has no argument ${argument.name.value}`);
    keywords[keyword] = literal(argument.value);
  }
  return keywords;
}

function literal(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    default:
      throw new Error(`@constraint takes only numbers, strings and booleans (got ${node.kind})`);
  }
}

/**
 * The JSON Schema of a value of `type` carrying `own` (its member's keywords), or undefined when neither it
 * nor anything inside it has a rule. Input objects are followed into their fields (each once per path).
 */
function valueSchema(type: GraphQLInputType, own: JsonSchema, path: ReadonlySet<string>): JsonSchema | undefined {
  const bare = isNonNullType(type) ? type.ofType : type;
  if (isListType(bare)) {
    const listKeywords = Object.fromEntries(Object.entries(own).filter(([key]) => LIST_KEYWORDS.has(key)));
    const itemKeywords = Object.fromEntries(Object.entries(own).filter(([key]) => !LIST_KEYWORDS.has(key)));
    const items = valueSchema(bare.ofType, itemKeywords, path);
    if (!items && Object.keys(listKeywords).length === 0) return undefined;
    return { ...listKeywords, ...(items ? { items } : {}) };
  }
  const named = getNamedType(bare);
  if (isInputObjectType(named)) {
    if (path.has(named.name)) return undefined;
    const inner = new Set(path).add(named.name);
    const properties: Record<string, JsonSchema> = {};
    for (const field of Object.values(named.getFields())) {
      const fieldSchema = valueSchema(field.type, directiveRules(field), inner);
      if (fieldSchema) properties[field.name] = fieldSchema;
    }
    if (Object.keys(properties).length === 0 && Object.keys(own).length === 0) return undefined;
    return { ...own, ...(Object.keys(properties).length > 0 ? { properties } : {}) };
  }
  if (Object.keys(own).length === 0) return undefined;
  return scalarSchema(named.name, own);
}

/** A scalar's keywords: `date | date-time` as either format, and an `ID`'s bounds on its integer. */
function scalarSchema(scalar: string, own: JsonSchema): JsonSchema {
  const { format, ...rest } = own;
  const formats = typeof format === 'string' ? format.split('|').map((name) => name.trim()) : [];
  const schema: JsonSchema = { ...rest };
  if (formats.length === 1) schema.format = formats[0];
  else if (formats.length > 1) {
    // Either format, each branch with the text rules, as REST's `DateOrDateTime` states it: the same
    // schema, so ajv reports the same violations for the same value.
    const { minLength, maxLength, pattern, ...others } = rest;
    const text = Object.fromEntries(
      Object.entries({ minLength, maxLength, pattern }).filter(([, v]) => v !== undefined),
    );
    for (const key of Object.keys(text)) delete schema[key];
    Object.assign(schema, others);
    schema.anyOf = formats.map((name) => ({ format: name, ...text }));
  }
  if (scalar === 'ID' && ('minimum' in own || 'maximum' in own)) {
    // The integer an ID names, kept exact (`int64`: what REST's `Id` states), read from its text first.
    schema.type = 'integer';
    schema.format = 'int64';
    schema[ID_MARK] = true;
  }
  return schema;
}
