/**
 * The proto items that carry meaning text, for the naming rule (./named-items.ts). Names a person writes:
 *   the file comment        `inventory/v1/inventory.proto` (or `inventory.proto`, `inventory.v1`)
 *   a service, its rpc      `Inventory`, `Inventory.Reserve` (or `Reserve`)
 *   a message, its field    `ReserveRequest`, `ReserveRequest.sku` (or `inventory.v1.ReserveRequest.sku`)
 *   an enum, its value      `ReservationState`, `ReservationState.RESERVATION_STATE_HELD`
 * Text: comments (leading or trailing) and options (`deprecated = true`, `json_name`, …).
 */
import path from 'node:path';
import protobuf from 'protobufjs';
import type { MeaningItem } from './model.js';

/** The comment lines at the top of the file, before `syntax`/`package`: its documentation. */
const fileComment = (text: string) =>
  /^(?:\s*\/\/[^\n]*\n)+/
    .exec(text)?.[0]
    ?.replace(/^\s*\/\/ ?/gm, '')
    .trim();

function names(fullName: string, short: string): string[] {
  return [...new Set([short, fullName, `grpc.${fullName}`])];
}

function walk(items: MeaningItem[], namespace: protobuf.NamespaceBase, pkg: string): void {
  for (const nested of namespace.nestedArray) {
    const fullName = nested.fullName.replace(/^\./, '');
    const short = fullName.startsWith(`${pkg}.`) ? fullName.slice(pkg.length + 1) : fullName;
    const key = `proto:${fullName}`;
    const own = names(fullName, short);
    const text = { comment: nested.comment ?? undefined, options: nested.options };
    if (nested instanceof protobuf.Service) {
      items.push({ key, item: short, names: own, text });
      for (const method of nested.methodsArray)
        items.push({
          key: `${key}.${method.name}`,
          item: `${short}.${method.name}`,
          names: [...names(`${fullName}.${method.name}`, `${short}.${method.name}`), method.name],
          within: { parents: own, leaf: [method.name] },
          parentKey: key,
          text: { comment: method.comment ?? undefined, options: method.options },
        });
    } else if (nested instanceof protobuf.Type) {
      items.push({ key, item: short, names: own, text });
      for (const field of nested.fieldsArray)
        items.push({
          key: `${key}.${field.name}`,
          item: `${short}.${field.name}`,
          names: names(`${fullName}.${field.name}`, `${short}.${field.name}`),
          within: { parents: own, leaf: [field.name] },
          parentKey: key,
          text: { comment: field.comment ?? undefined, options: field.options },
        });
      walk(items, nested, pkg);
    } else if (nested instanceof protobuf.Enum) {
      items.push({ key, item: short, names: own, text });
      for (const value of Object.keys(nested.values))
        items.push({
          key: `${key}.${value}`,
          item: `${short}.${value}`,
          names: names(`${fullName}.${value}`, `${short}.${value}`),
          within: { parents: own, leaf: [value] },
          parentKey: key,
          text: { comment: nested.comments[value] ?? undefined, options: nested.valuesOptions?.[value] },
        });
    } else if (nested instanceof protobuf.Namespace) {
      walk(items, nested, pkg);
    }
  }
}

/** Every item of the proto files (by path) that carries meaning text. */
export function protoItems(files: Map<string, string>): MeaningItem[] {
  const items: MeaningItem[] = [];
  for (const [file, text] of files) {
    const parsed = protobuf.parse(text, { alternateCommentMode: true, keepCase: true });
    const pkg = parsed.package ?? '';
    items.push({
      key: `file:${file}`,
      item: file,
      names: [file, path.basename(file), ...(pkg ? [pkg] : [])],
      text: { comment: fileComment(text) },
    });
    walk(items, parsed.root, pkg);
  }
  return items;
}
