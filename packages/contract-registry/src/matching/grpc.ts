/**
 * Which registry items a gRPC call uses (docs/decisions.md §7): its rpc, the request fields it set (a
 * known field with a value, or an unknown one on the wire, as an old client's retired field), and the
 * response fields its reply carries. Shared by the gRPC transport and the contract scripts. What a use
 * is, is the core's deprecation policy.
 */
import {
  clearField,
  type DescField,
  type DescMessage,
  type DescMethod,
  isFieldSet,
  type Message,
} from '@bufbuild/protobuf';
import type { DeprecationRegistry, RegistryItem } from '../registry.js';
import type { ReceivedItem } from '../uses.js';

/** A message field of the registry. */
interface FieldItem {
  number: number;
  item: RegistryItem;
}

/** The registry's gRPC items, matched against calls. */
export interface GrpcMatcher {
  /** Whether the registry has any gRPC item. */
  readonly empty: boolean;
  /** The items a call sends: its rpc, and the fields its request message set. */
  sent(method: DescMethod, request: Message | undefined): RegistryItem[];
  /** Whether a call of a method can send a registry item at all (its rpc, or a field of its request type). */
  maySend(method: DescMethod): boolean;
  /** Whether a method's reply can hold registry fields at all (in its type or a message nested in it). */
  mayReceive(method: DescMethod): boolean;
  /** The registry fields a reply's type holds (nested messages too), with whether this reply carries each. */
  received(method: DescMethod, reply: Message): ReceivedItem[];
  /** Clears the given registry fields wherever the reply carries them (a brownout withholds them). */
  clear(method: DescMethod, reply: Message, items: readonly RegistryItem[]): void;
}

/** Indexes the registry's gRPC items by rpc (`package.Service.Method`) and by message type. */
export function grpcMatcher(registry: DeprecationRegistry): GrpcMatcher {
  const rpcs = new Map<string, RegistryItem>();
  const fields = new Map<string, FieldItem[]>();
  for (const item of registry.items) {
    const match = item.match;
    if (item.protocol !== 'grpc') continue;
    if (match.on === 'rpc' && 'method' in match) rpcs.set(`${match.service}.${match.method}`, item);
    if (match.on === 'field' && 'number' in match) {
      fields.set(match.message, [...(fields.get(match.message) ?? []), { number: match.number, item }]);
    }
  }
  return {
    empty: rpcs.size === 0 && fields.size === 0,
    sent(method, request) {
      const used: RegistryItem[] = [];
      const rpc = rpcs.get(`${method.parent.typeName}.${method.name}`);
      if (rpc) used.push(rpc);
      if (request) {
        for (const { number, item } of fields.get(method.input.typeName) ?? []) {
          if (isSet(method.input, request, number)) used.push(item);
        }
      }
      return used;
    },
    maySend: (method) => rpcs.has(`${method.parent.typeName}.${method.name}`) || fields.has(method.input.typeName),
    mayReceive: (method) => holdsRegistryFields(method.output, fields, new Set()),
    received(method, reply) {
      const found = new Map<RegistryItem, boolean>();
      visit(method.output, reply, fields, (item, carried) => found.set(item, (found.get(item) ?? false) || carried));
      // No gRPC caller can leave a field out: a reply that carries it is read.
      return [...found].map(([item, carried]) => ({ item, carried, named: true }));
    },
    clear(method, reply, items) {
      visit(method.output, reply, fields, (item, carried, message, field) => {
        if (carried && items.includes(item) && field) clearField(message, field);
      });
    },
  };
}

/** Whether a message type, or one nested in it, has registry fields. */
function holdsRegistryFields(schema: DescMessage, fields: Map<string, FieldItem[]>, seen: Set<string>): boolean {
  if (fields.has(schema.typeName)) return true;
  if (seen.has(schema.typeName)) return false;
  seen.add(schema.typeName);
  return schema.fields.some((field) => {
    const nested =
      field.fieldKind === 'message' ? field.message : field.fieldKind === 'list' ? field.message : undefined;
    return nested !== undefined && holdsRegistryFields(nested, fields, seen);
  });
}

/**
 * Calls `found` for every registry field of the message and of the messages set in it (singular and
 * repeated), with whether that message instance sets it.
 */
function visit(
  schema: DescMessage,
  message: Message,
  fields: Map<string, FieldItem[]>,
  found: (item: RegistryItem, carried: boolean, message: Message, field: DescField | undefined) => void,
  depth = 0,
): void {
  if (depth > 16) return;
  for (const { number, item } of fields.get(schema.typeName) ?? []) {
    found(
      item,
      isSet(schema, message, number),
      message,
      schema.fields.find((field) => field.number === number),
    );
  }
  for (const field of schema.fields) {
    const value = (message as unknown as Record<string, unknown>)[field.localName];
    if (field.fieldKind === 'message' && value) visit(field.message, value as Message, fields, found, depth + 1);
    if (field.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(value)) {
      for (const entry of value) visit(field.message, entry as Message, fields, found, depth + 1);
    }
  }
}

/** Whether a message has field `number` set: a known field with a value, or an unknown one on the wire. */
function isSet(schema: DescMessage, message: Message, number: number): boolean {
  const field = schema.fields.find((candidate) => candidate.number === number);
  if (field) return isFieldSet(message, field);
  const unknown = (message as { $unknown?: Array<{ no: number }> }).$unknown;
  return unknown?.some((entry) => entry.no === number) ?? false;
}
