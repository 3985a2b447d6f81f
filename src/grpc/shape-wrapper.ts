/**
 * Records the shape of every call to the internal port (docs/decisions.md §13): the method (streams too),
 * the codec (binary or JSON: a renamed field breaks JSON callers only), and the request fields set at every
 * depth as `package.Message.field` (a non-default implicit-presence scalar, any explicit-presence field, a
 * non-empty list or map), the enum values sent as `package.Enum.VALUE`, and unknown field numbers as
 * `package.Message#7`. Names only, never a value. The caller is the `x-api-key` checked before (./auth.ts),
 * else the client; the Order API's own calls (`user-agent: order-api/…`, through `INVENTORY_URL`) are
 * labelled `(own) order-api/…`.
 */
import { type DescEnum, type DescField, type DescMessage, isFieldSet, type Message } from '@bufbuild/protobuf';
import { keyCaller } from './auth.js';
import { requestHeaderOf } from './grpc-js-context.js';
import type { CallWrapper } from './service-wrappers.js';

/** What the wrapper records with. */
export type RecordCallShape = (caller: { apiKeyId: number; client: string }, shapes: readonly string[]) => void;

/** The client name the Order API's own inventory client sends (`user-agent`). */
export const OWN_CLIENT = 'order-api';
export const OWN_USER_AGENT = `${OWN_CLIENT}/inventory-client`;

const MAX_DEPTH = 12;

/** The wrapper: records, then calls on (the record never fails or delays a call). */
export function shapeWrapper(
  record: RecordCallShape,
  clientOf: (userAgent: string | null | undefined) => string,
): CallWrapper {
  return (method, next) => {
    const name = `${method.parent.typeName}/${method.name}`;
    const [json, binary] = [`${name} codec:json`, `${name} codec:binary`];
    return (request, context) => {
      const contentType = requestHeaderOf(context, 'content-type') ?? '';
      const shapes = [name, contentType.includes('json') ? json : binary];
      fieldsSet(method.input, request, shapes, 0);
      const client = clientOf(requestHeaderOf(context, 'user-agent'));
      const own = client.startsWith(`${OWN_CLIENT}/`);
      const apiKeyId = context.values.get(keyCaller)?.apiKeyId ?? 0;
      record({ apiKeyId, client: own ? `(own) ${client}` : client }, shapes);
      return next(request, context);
    };
  };
}

/**
 * Appends the fields set in `message` (and in the messages it holds), its enum values and unknown fields.
 * Read from the message as it is (no reflection object per call): a field's value is its member, or its
 * oneof's value; lists are arrays and maps plain objects.
 */
export function fieldsSet(desc: DescMessage, message: Message, out: string[], depth: number): void {
  if (depth > MAX_DEPTH || typeof message !== 'object' || message === null) return;
  const members = message as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    if (!isFieldSet(message, field)) continue;
    out.push(fieldName(desc, field));
    if (field.fieldKind === 'scalar') continue;
    const value = field.oneof ? (members[field.oneof.localName] as { value: unknown }).value : members[field.localName];
    if (field.fieldKind === 'message') fieldsSet(field.message, value as Message, out, depth + 1);
    else if (field.fieldKind === 'enum') enumValue(field.enum, value, out);
    else {
      const list = field.fieldKind === 'list';
      const kind = list ? field.listKind : field.mapKind;
      if (kind === 'scalar') continue;
      for (const entry of list ? (value as unknown[]) : Object.values(value as object)) {
        if (kind === 'message') fieldsSet(field.message as DescMessage, entry as Message, out, depth + 1);
        else enumValue(field.enum as DescEnum, entry, out);
      }
    }
  }
  for (const unknown of message.$unknown ?? []) out.push(`${desc.typeName}#${unknown.no}`);
}

const fieldNames = new WeakMap<DescField, string>();

/** `package.Message.field`, written once per field. */
function fieldName(desc: DescMessage, field: DescField): string {
  let name = fieldNames.get(field);
  if (name === undefined) {
    name = `${desc.typeName}.${field.name}`;
    fieldNames.set(field, name);
  }
  return name;
}

function enumValue(desc: { typeName: string; value: Record<number, { name: string }> }, value: unknown, out: string[]) {
  const known = desc.value[value as number];
  out.push(known ? `${desc.typeName}.${known.name}` : `${desc.typeName}#${String(value)}`);
}
