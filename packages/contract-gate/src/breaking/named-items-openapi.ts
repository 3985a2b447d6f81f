/**
 * The OpenAPI items that carry meaning text, for the naming rule (./named-items.ts). Names a person writes:
 *   the introduction         `info.description` (or `info`)
 *   a tag                    `tags.Deprecations` (or `Deprecations`)
 *   a component              `Order`, `OrderFields`, `TooManyRequests`, `RateLimit`; a shared example
 *                            `examples.Order` (or `Order example`)
 *   a schema property        `Order.amount`, `Order.amountDetail.vat` (or `rest.Order.amount`)
 *   an operation             `GET /v1/orders` or `listOrders` (or `rest.listOrders`)
 *   its parameter            `GET /v1/orders status`, `listOrders.status`, or `status` beside the operation
 *   its request body         `POST /v1/orders request`, a member `POST /v1/orders request.note`
 *   its response             `POST /v1/orders 503`, or `503` beside the operation, or the shared response
 *   a response header        `GET /v1/orders 200 RateLimit`, or the shared header, or `RateLimit` beside the operation
 */
import type { MeaningItem } from './model.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked as loosely typed JSON
type Json = Record<string, any>;

/** Schema keywords whose text is meaning: what a value is, looks like, defaults to and may be. */
const SCHEMA_TEXT = [
  'title',
  'description',
  'example',
  'examples',
  'default',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'enum',
  'const',
  'x-extensible-enum',
  'deprecated',
  'x-deprecated-on',
  'x-sunset',
  'x-replaced-by',
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

const refName = (node: Json | undefined): string | undefined =>
  typeof node?.$ref === 'string' ? node.$ref.split('/').at(-1) : undefined;

/** The meaning text of a schema: its own keywords, and those of its array items when they are inline. */
function schemaText(schema: Json | undefined): Record<string, unknown> {
  if (!schema || typeof schema !== 'object') return {};
  const text: Record<string, unknown> = {};
  for (const key of SCHEMA_TEXT) if (schema[key] !== undefined) text[key] = schema[key];
  const items = schema.items as Json | undefined;
  if (items && !items.$ref) for (const [key, value] of Object.entries(schemaText(items))) text[`items.${key}`] = value;
  return text;
}

/** The properties of an inline object schema (through array items and inline allOf members). */
function propertiesOf(schema: Json | undefined): { properties: Record<string, Json>; required: string[] } {
  const out = { properties: {} as Record<string, Json>, required: [] as string[] };
  if (!schema || schema.$ref) return out;
  if (schema.items && !schema.properties) return propertiesOf(schema.items);
  Object.assign(out.properties, schema.properties ?? {});
  out.required.push(...(schema.required ?? []));
  for (const member of schema.allOf ?? []) {
    const inner = propertiesOf(member);
    Object.assign(out.properties, inner.properties);
    out.required.push(...inner.required);
  }
  return out;
}

/** A schema's properties as items, recursively through inline objects. */
function properties(
  items: MeaningItem[],
  schema: Json | undefined,
  owner: { key: string; item: string; names: string[]; registry?: string },
): void {
  const { properties: members, required } = propertiesOf(schema);
  for (const [name, member] of Object.entries(members)) {
    const item = `${owner.item}.${name}`;
    const key = `${owner.key}.${name}`;
    const names = [item, ...(owner.registry ? [`${owner.registry}.${name}`] : [])];
    items.push({
      key,
      item,
      names,
      within: { parents: owner.names, leaf: [name] },
      parentKey: owner.key,
      text: { ...schemaText(member), required: required.includes(name), ref: refName(member) },
    });
    properties(items, member, { key, item, names: [item] });
  }
}

/** The meaning text of a request body's or response's content: its examples (inline or shared) and schemas. */
function contentText(content: Json | undefined): Record<string, unknown> {
  const media = Object.entries(content ?? {});
  return {
    examples: Object.fromEntries(media.map(([type, body]) => [type, body?.example ?? body?.examples])),
    schema: Object.fromEntries(media.map(([type, body]) => [type, refName(body?.schema) ?? schemaText(body?.schema)])),
  };
}

function operationItems(items: MeaningItem[], document: Json, route: string, method: string, op: Json): void {
  const parameters = (document.components?.parameters ?? {}) as Record<string, Json>;
  const item = `${method.toUpperCase()} ${route}`;
  const key = `op:${item}`;
  const id = op.operationId as string | undefined;
  const names = [item, ...(id ? [id, `rest.${id}`] : [])];
  items.push({ key, item, names, text: { summary: op.summary, description: op.description } });
  const shared = (document.paths?.[route]?.parameters ?? []) as Json[];
  for (const parameter of [...shared, ...((op.parameters ?? []) as Json[])]) {
    const ref = refName(parameter);
    const resolved = ref ? parameters[ref] : parameter;
    if (!resolved?.name) continue;
    const name = String(resolved.name);
    items.push({
      key: `${key} ${resolved.in}:${name}`,
      item: `${item} ${name}`,
      names: [
        `${item} ${name}`,
        ...(id ? [`${id}.${name}`, `rest.${id}.${resolved.in}.${name}`] : []),
        ...(ref ? [ref] : []),
      ],
      within: { parents: names, leaf: [name] },
      parentKey: key,
      text: ref
        ? { ref }
        : {
            description: parameter.description,
            required: parameter.required,
            ...schemaText(parameter.schema),
            example: parameter.example,
            examples: parameter.examples,
          },
    });
  }
  if (op.requestBody) {
    const body = op.requestBody as Json;
    const bodyItem = `${item} request`;
    items.push({
      key: `${key} request`,
      item: bodyItem,
      names: [bodyItem, ...(refName(body) ? [refName(body) as string] : [])],
      within: { parents: names, leaf: ['request', 'requestBody', 'body'] },
      parentKey: key,
      text: { description: body.description, required: body.required, ...contentText(body.content) },
    });
    const schema = (Object.values(body.content ?? {})[0] as Json | undefined)?.schema;
    properties(items, schema, {
      key: `${key} request`,
      item: bodyItem,
      names,
      ...(id ? { registry: `rest.${id}.body` } : {}),
    });
  }
  for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
    const ref = refName(response);
    const responseItem = `${item} ${status}`;
    const responseKey = `${key} ${status}`;
    items.push({
      key: responseKey,
      item: responseItem,
      names: [responseItem, ...(id ? [`${id} ${status}`] : []), ...(ref ? [ref] : [])],
      within: { parents: names, leaf: [status] },
      parentKey: key,
      text: ref ? { ref } : { description: response.description, ...contentText(response.content) },
    });
    if (ref) continue;
    headerItems(items, response, { key: responseKey, item: responseItem, names: [...names, responseItem] });
    const schema = (Object.values(response.content ?? {})[0] as Json | undefined)?.schema;
    properties(items, schema, { key: responseKey, item: `${responseItem} response`, names });
  }
}

function headerItems(items: MeaningItem[], response: Json, owner: { key: string; item: string; names: string[] }) {
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const ref = refName(header);
    items.push({
      key: `${owner.key} header:${name}`,
      item: `${owner.item} ${name}`,
      names: [`${owner.item} ${name}`, ...(ref ? [ref] : [])],
      within: { parents: owner.names, leaf: [name] },
      parentKey: owner.key,
      text: ref
        ? { ref }
        : { description: header.description, required: header.required, ...schemaText(header.schema) },
    });
  }
}

/** Every item of an OpenAPI document that carries meaning text. */
export function openapiItems(document: Json): MeaningItem[] {
  const items: MeaningItem[] = [
    {
      key: 'info',
      item: 'info.description',
      names: ['info.description', 'info'],
      text: { title: document.info?.title, summary: document.info?.summary, description: document.info?.description },
    },
  ];
  for (const tag of (document.tags ?? []) as Json[])
    items.push({
      key: `tag:${tag.name}`,
      item: `tags.${tag.name}`,
      names: [`tags.${tag.name}`, String(tag.name)],
      text: { description: tag.description },
    });
  const components = (document.components ?? {}) as Record<string, Record<string, Json>>;
  for (const [name, schema] of Object.entries(components.schemas ?? {})) {
    items.push({ key: `schema:${name}`, item: name, names: [name, `rest.${name}`], text: schemaText(schema) });
    properties(items, schema, { key: `schema:${name}`, item: name, names: [name], registry: `rest.${name}` });
  }
  for (const [name, parameter] of Object.entries(components.parameters ?? {}))
    items.push({
      key: `parameter:${name}`,
      item: name,
      names: [name],
      text: {
        description: parameter.description,
        required: parameter.required,
        example: parameter.example,
        examples: parameter.examples,
        ...schemaText(parameter.schema),
      },
    });
  for (const [name, header] of Object.entries(components.headers ?? {}))
    items.push({
      key: `header:${name}`,
      item: name,
      names: [name],
      text: { description: header.description, ...schemaText(header.schema) },
    });
  for (const [name, response] of Object.entries(components.responses ?? {})) {
    items.push({
      key: `response:${name}`,
      item: name,
      names: [name],
      text: { description: response.description, ...contentText(response.content) },
    });
    headerItems(items, response, { key: `response:${name}`, item: name, names: [name] });
  }
  for (const [name, example] of Object.entries(components.examples ?? {}))
    items.push({
      key: `example:${name}`,
      item: `examples.${name}`,
      names: [`examples.${name}`, `${name} example`],
      text: { summary: example.summary, description: example.description, value: example.value },
    });
  for (const [name, scheme] of Object.entries(components.securitySchemes ?? {}))
    items.push({ key: `security:${name}`, item: name, names: [name], text: { description: scheme.description } });
  for (const [route, pathItem] of Object.entries((document.paths ?? {}) as Record<string, Json>))
    for (const method of METHODS)
      if (pathItem[method]) operationItems(items, document, route, method, pathItem[method]);
  // A webhook is named like an operation: `POST order.created` or its operationId.
  for (const [name, pathItem] of Object.entries((document.webhooks ?? {}) as Record<string, Json>))
    for (const method of METHODS) if (pathItem[method]) operationItems(items, document, name, method, pathItem[method]);
  return items;
}
