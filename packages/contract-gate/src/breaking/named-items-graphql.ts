/**
 * The GraphQL items that carry meaning text, for the naming rule (./named-items.ts). Names a person writes:
 *   the schema's description   `schema`
 *   a type                     `Order`, `OrderStatus` (or `graphql.Order`)
 *   a field or input field     `Order.amount`, `OrderSearch.status` (or `graphql.Order.amount`)
 *   an argument                `Query.orders.status` (or `Query.orders(status:)`, or `status` beside `Query.orders`)
 *   an enum value              `OrderStatus.REFUNDED`
 *   a directive                `@cost`, its argument `@cost.weight`
 * Text: descriptions, deprecation reasons, default values.
 */
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLInputField,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  print,
} from 'graphql';
import type { MeaningItem } from './model.js';

const defaultOf = (input: GraphQLArgument | GraphQLInputField) =>
  input.astNode?.defaultValue ? print(input.astNode.defaultValue) : undefined;

function argumentItems(items: MeaningItem[], owner: { key: string; item: string }, args: readonly GraphQLArgument[]) {
  for (const arg of args) {
    const item = `${owner.item}.${arg.name}`;
    items.push({
      key: `${owner.key}.${arg.name}`,
      item,
      names: [item, `${owner.item}(${arg.name}:)`, `graphql.${item}`],
      within: { parents: [owner.item], leaf: [arg.name] },
      parentKey: owner.key,
      text: { description: arg.description, default: defaultOf(arg), deprecationReason: arg.deprecationReason },
    });
  }
}

/** Every item of an SDL that carries meaning text. */
export function graphqlItems(sdl: string): MeaningItem[] {
  const schema = buildSchema(sdl);
  const items: MeaningItem[] = [
    { key: 'schema', item: 'schema', names: ['schema'], text: { description: schema.description } },
  ];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    const key = `type:${type.name}`;
    items.push({
      key,
      item: type.name,
      names: [type.name, `graphql.${type.name}`],
      text: {
        description: type.description,
        specifiedByURL: 'specifiedByURL' in type ? type.specifiedByURL : undefined,
      },
    });
    const within = { parents: [type.name], leaf: [] as string[] };
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        const item = `${type.name}.${field.name}`;
        const fieldKey = `${key}.${field.name}`;
        items.push({
          key: fieldKey,
          item,
          names: [item, `graphql.${item}`],
          within: { ...within, leaf: [field.name] },
          parentKey: key,
          text: {
            description: field.description,
            deprecationReason: field.deprecationReason,
            default: 'args' in field ? undefined : defaultOf(field),
          },
        });
        if ('args' in field) argumentItems(items, { key: fieldKey, item }, field.args);
      }
    }
    if (isEnumType(type))
      for (const value of type.getValues())
        items.push({
          key: `${key}.${value.name}`,
          item: `${type.name}.${value.name}`,
          names: [`${type.name}.${value.name}`, `graphql.${type.name}.${value.name}`],
          within: { ...within, leaf: [value.name] },
          parentKey: key,
          text: { description: value.description, deprecationReason: value.deprecationReason },
        });
  }
  for (const directive of schema.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    const item = `@${directive.name}`;
    items.push({
      key: `directive:${item}`,
      item,
      names: [item, directive.name],
      text: { description: directive.description },
    });
    argumentItems(items, { key: `directive:${item}`, item }, directive.args);
  }
  return items;
}
