/**
 * Which registry items a gRPC call uses (docs/decisions.md §7): its rpc, the request fields it set (a
 * known field with a value, or an unknown one on the wire, as an old client's retired field), and the
 * response fields its reply carries. Shared by the gRPC transport and the contract scripts. What a use
 * is, is the core's deprecation policy.
 */
import { type DescMessage, type DescMethod, isFieldSet, type Message } from '@bufbuild/protobuf';
import type { ReceivedItem } from '../core/deprecation-policy.js';
import type { DeprecationRegistry, RegistryItem } from '../core/deprecation-registry.js';

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
  /** Whether a method's reply type has registry fields at all. */
  mayReceive(method: DescMethod): boolean;
  /** The registry fields of a method's reply type, with whether this reply carries each. */
  received(method: DescMethod, reply: Message): ReceivedItem[];
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
    mayReceive: (method) => fields.has(method.output.typeName),
    received(method, reply) {
      return (fields.get(method.output.typeName) ?? []).map(({ number, item }) => ({
        item,
        carried: isSet(method.output, reply, number),
        // No gRPC caller can leave a field out: a reply that carries it is read.
        named: true,
      }));
    },
  };
}

/** Whether a message has field `number` set: a known field with a value, or an unknown one on the wire. */
function isSet(schema: DescMessage, message: Message, number: number): boolean {
  const field = schema.fields.find((candidate) => candidate.number === number);
  if (field) return isFieldSet(message, field);
  const unknown = (message as { $unknown?: Array<{ no: number }> }).$unknown;
  return unknown?.some((entry) => entry.no === number) ?? false;
}
