/**
 * Records the shape of every call to the internal port (docs/decisions.md §13): the method (streams too),
 * the codec (binary or JSON: a renamed field breaks JSON callers only), and the request fields set at every
 * depth as `package.Message.field` (a non-default implicit-presence scalar, any explicit-presence field, a
 * non-empty list or map), the enum values sent as `package.Enum.VALUE`, and unknown field numbers as
 * `package.Message#7`. Names only, never a value. The caller is the `x-api-key` checked before (./auth.ts),
 * else the client; the Order API's own calls (`user-agent: order-api/…`, through `INVENTORY_URL`) are
 * labelled `(own) order-api/…`.
 */
import type { DescField, DescMessage, Message } from '@bufbuild/protobuf';
import { isReflectMessage, type ReflectMessage, reflect } from '@bufbuild/protobuf/reflect';
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

/** Appends the fields set in `message` (and in the messages it holds), its enum values and unknown fields. */
export function fieldsSet(desc: DescMessage, message: Message | ReflectMessage, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  const view = isReflectMessage(message) ? message : reflect(desc, message);
  for (const field of view.fields) {
    if (!view.isSet(field)) continue;
    out.push(fieldName(desc, field));
    const value = view.get(field) as unknown;
    if (field.fieldKind === 'message') fieldsSet(field.message, value as ReflectMessage, out, depth + 1);
    if (field.fieldKind === 'enum') enumValue(field.enum, value, out);
    if (field.fieldKind === 'list') {
      for (const entry of value as Iterable<unknown>) {
        if (field.listKind === 'message') fieldsSet(field.message, entry as ReflectMessage, out, depth + 1);
        if (field.listKind === 'enum') enumValue(field.enum, entry, out);
      }
    }
    if (field.fieldKind === 'map') {
      for (const entry of (value as ReadonlyMap<unknown, unknown>).values()) {
        if (field.mapKind === 'message') fieldsSet(field.message, entry as ReflectMessage, out, depth + 1);
        if (field.mapKind === 'enum') enumValue(field.enum, entry, out);
      }
    }
  }
  for (const unknown of view.getUnknown() ?? []) out.push(`${desc.typeName}#${unknown.no}`);
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
