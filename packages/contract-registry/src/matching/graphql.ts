/**
 * Which registry items a GraphQL operation uses (docs/decisions.md §7): the arguments, input fields and
 * enum values it sends, inline or in variables, and the fields it selects. Walked once per parsed
 * document; only the variables are read per request. Shared by the GraphQL transport and the contract
 * scripts (impact analysis). What a use is, is the core's deprecation policy.
 */
import {
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { DeprecationRegistry, RegistryItem } from '../registry.js';
import type { RequestUses } from '../uses.js';

/** The registry's GraphQL items, matched against operations. */
export interface GraphqlMatcher {
  /** Whether the registry has any GraphQL item (when not, nothing needs matching). */
  readonly empty: boolean;
  /** What an operation uses: the items it sends, the fields it selects, and every coordinate it names. */
  uses(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): RequestUses;
}

/** Indexes the registry's GraphQL items by schema coordinate (`Type.field`, `Type.field.arg`, `Enum.VALUE`). */
export function graphqlMatcher(registry: DeprecationRegistry): GraphqlMatcher {
  const items = new Map<string, RegistryItem>();
  /** Fields with a replacement, by the replacement's coordinate: selecting it may be a replacement use. */
  const replaced = new Map<string, RegistryItem[]>();
  for (const item of registry.items) {
    if (item.protocol !== 'graphql') continue;
    items.set(item.id.slice('graphql.'.length), item);
    if (item.match.on === 'field' && 'type' in item.match && item.replacement) {
      const coordinate = `${item.match.type}.${item.replacement}`;
      replaced.set(coordinate, [...(replaced.get(coordinate) ?? []), item]);
    }
  }
  return {
    empty: items.size === 0,
    uses(schema, document, variables) {
      const asked = namesUsed(schema, document, variables);
      const sent: RegistryItem[] = [];
      const received: RequestUses['received'][number][] = [];
      for (const name of asked) {
        const item = items.get(name);
        if (!item) continue;
        // A selected field is what the answer carries, by name; everything else is sent.
        if (item.match.on === 'field') received.push({ item, carried: true, named: true });
        else sent.push(item);
      }
      // A field left unselected whose replacement is selected: the answer does not carry it.
      for (const name of asked) {
        for (const item of replaced.get(name) ?? []) {
          if (!received.some((entry) => entry.item === item)) received.push({ item, carried: false, named: false });
        }
      }
      return { sent, received, asked };
    },
  };
}

/** What a document selects and sends inline, and the input types of its variables: the same on every request. */
interface DocumentUses {
  names: ReadonlySet<string>;
  variables: Array<{ name: string; type: GraphQLInputType }>;
}

/** Per parsed document (Yoga's parser cache hands the same DocumentNode to every request with the same text). */
const usesByDocument = new WeakMap<DocumentNode, DocumentUses>();

/**
 * The schema coordinates an operation uses: `Type.field` selected, `Type.field.arg` sent, `Input.field`
 * and `Enum.VALUE` sent inline or through variables. The walk over the document is done once per document;
 * only the variables are read on each request.
 */
export function namesUsed(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>) {
  const uses = cachedUses(schema, document);
  if (uses.variables.length === 0) return uses.names;
  const found = new Set(uses.names);
  for (const { name, type } of uses.variables) valueUses(type, variables[name], found);
  return found;
}

/** The input fields and enum values an operation sends through its variables alone (the request-shape record). */
export function variableNamesUsed(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>) {
  const found = new Set<string>();
  for (const { name, type } of cachedUses(schema, document).variables) valueUses(type, variables[name], found);
  return found;
}

function cachedUses(schema: GraphQLSchema, document: DocumentNode): DocumentUses {
  let uses = usesByDocument.get(document);
  if (!uses) {
    uses = documentUses(schema, document);
    usesByDocument.set(document, uses);
  }
  return uses;
}

/** The input fields and enum values a variable's value sends. */
function valueUses(type: GraphQLInputType, value: unknown, found: Set<string>, depth = 0): void {
  if (value === null || value === undefined || depth > 20) return;
  if (isNonNullType(type)) {
    valueUses(type.ofType, value, found, depth);
    return;
  }
  if (isListType(type)) {
    for (const entry of Array.isArray(value) ? value : [value]) valueUses(type.ofType, entry, found, depth + 1);
    return;
  }
  if (isEnumType(type) && typeof value === 'string') found.add(`${type.name}.${value}`);
  if (isInputObjectType(type) && typeof value === 'object') {
    const fields = type.getFields();
    for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[name];
      if (!field) continue;
      found.add(`${type.name}.${name}`);
      valueUses(field.type, member, found, depth + 1);
    }
  }
}

function documentUses(schema: GraphQLSchema, document: DocumentNode): DocumentUses {
  const names = new Set<string>();
  const variables: DocumentUses['variables'] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      VariableDefinition(node) {
        const type = typeFromAST(schema, node.type as never) as GraphQLInputType | undefined;
        if (type) variables.push({ name: node.variable.name.value, type });
      },
      Field() {
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (field && parent) names.add(`${parent.name}.${field.name}`);
      },
      Argument() {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (argument && field && parent) names.add(`${parent.name}.${field.name}.${argument.name}`);
      },
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        const named = parent ? getNamedType(parent) : undefined;
        if (named && isInputObjectType(named)) names.add(`${named.name}.${node.name.value}`);
      },
      EnumValue(node) {
        const type = typeInfo.getInputType();
        const named = type ? getNamedType(type) : undefined;
        if (named && isEnumType(named)) names.add(`${named.name}.${node.value}`);
      },
    }),
  );
  return { names, variables };
}
