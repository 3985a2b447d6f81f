/**
 * The items of a contracts directory's public proto (inventory/), read from `buf build`'s descriptors: each
 * field (`inventory.v1.ReserveRequest.sku`, with its number), rpc (`inventory.v1.Inventory/Reserve`, with its
 * request and reply messages) and enum value (`inventory.v1.ReservationState.ACTIVE`). Impact analysis lists
 * what a candidate removes, `reserved` or not: buf lets a field retired with `reserved` through, but its
 * senders lose it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: buf's JSON descriptors
type Json = Record<string, any>;

/** The proto items of one side. */
export interface ProtoItems {
  /** Fields by full name, with their number and the message that holds them. */
  fields: Map<string, { number: number; message: string }>;
  /** Rpcs by `package.Service/Method`, with their request and reply messages (full names). */
  rpcs: Map<string, { input: string; output: string }>;
  /** Enum values by full name. */
  enumValues: Set<string>;
  /** Message fields of each message (full names of the messages they hold), to follow replies inward. */
  holds: Map<string, string[]>;
}

/** Reads the items of `contractsDir/inventory` (and the protovalidate rules it imports). */
export function protoItems(contractsDir: string): ProtoItems {
  const scratch = mkdtempSync(path.join(tmpdir(), 'proto-items-'));
  try {
    cpSync(path.join(contractsDir, 'inventory'), path.join(scratch, 'inventory'), { recursive: true });
    if (existsSync(path.join(contractsDir, 'buf')))
      cpSync(path.join(contractsDir, 'buf'), path.join(scratch, 'buf'), { recursive: true });
    writeFileSync(path.join(scratch, 'buf.yaml'), 'version: v2\n');
    const json = execFileSync(
      'buf',
      ['build', scratch, '--path', path.join(scratch, 'inventory'), '-o', '-#format=json'],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return itemsOf(JSON.parse(json) as Json);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function itemsOf(set: Json): ProtoItems {
  const items: ProtoItems = { fields: new Map(), rpcs: new Map(), enumValues: new Set(), holds: new Map() };
  const strip = (typeName: string) => typeName.replace(/^\./, '');
  const enums = (list: Json[] | undefined, outer: string) => {
    for (const entry of list ?? [])
      for (const value of entry.value ?? []) items.enumValues.add(`${outer}.${entry.name}.${value.name}`);
  };
  const messages = (list: Json[] | undefined, outer: string) => {
    for (const message of list ?? []) {
      const name = `${outer}.${message.name}`;
      const held: string[] = [];
      for (const field of message.field ?? []) {
        items.fields.set(`${name}.${field.name}`, { number: field.number, message: name });
        if (field.typeName) held.push(strip(field.typeName));
      }
      items.holds.set(name, held);
      enums(message.enumType, name);
      messages(message.nestedType, name);
    }
  };
  for (const file of set.file ?? []) {
    const name = file.name as string;
    if (!name.startsWith('inventory/')) continue;
    const pkg = file.package as string;
    messages(file.messageType, pkg);
    enums(file.enumType, pkg);
    for (const service of file.service ?? [])
      for (const method of service.method ?? [])
        items.rpcs.set(`${pkg}.${service.name}/${method.name}`, {
          input: strip(method.inputType),
          output: strip(method.outputType),
        });
  }
  return items;
}

/** A proto item the candidate removes. */
export interface ProtoRemoval {
  kind: 'field' | 'rpc' | 'enum-value';
  /** Its full name: `inventory.v1.ReserveRequest.sku`, `inventory.v1.Inventory/Reserve`, `inventory.v1.E.V`. */
  item: string;
  /** A field's message (full name). */
  message?: string;
}

/** What `head` no longer has of `base`: fields by name (a renamed field is gone for JSON callers), rpcs, enum values. */
export function protoRemovals(base: ProtoItems, head: ProtoItems): ProtoRemoval[] {
  const removed: ProtoRemoval[] = [];
  for (const [item, { message }] of base.fields)
    if (!head.fields.has(item) && head.holds.has(message)) removed.push({ kind: 'field', item, message });
  for (const item of base.rpcs.keys()) if (!head.rpcs.has(item)) removed.push({ kind: 'rpc', item });
  for (const item of base.enumValues) if (!head.enumValues.has(item)) removed.push({ kind: 'enum-value', item });
  return removed;
}

/** The rpcs whose reply holds `message`, directly or in a message it holds. */
export function rpcsReplying(items: ProtoItems, message: string): string[] {
  const out: string[] = [];
  for (const [rpc, { output }] of items.rpcs) {
    const seen = new Set<string>();
    const stack = [output];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      if (next === message) {
        out.push(rpc);
        break;
      }
      stack.push(...(items.holds.get(next) ?? []));
    }
  }
  return out;
}
