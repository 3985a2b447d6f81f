/**
 * Which REST operations' 2xx answers carry a schema's member, and under which top-level member of the
 * resource (what `fields=` names): docs/decisions.md §7 counts an answer that carried a member as a use of
 * it, unless `fields=` left it out. Read from the contract as written (references by name).
 */
import { type Json, resolver } from '../breaking/openapi-schema.js';

/** An operation whose answer carries the member, and the resource member `fields=` would keep it by. */
export interface Carrier {
  op: string;
  top: string;
}

const MAX_DEPTH = 12;

/** The operations whose 2xx answers reach `component` (a schema name), with the top-level member holding `member`. */
export function responseCarriers(document: Json, component: string, member: string): Carrier[] {
  const resolve = resolver(document);
  const ref = `#/components/schemas/${component}`;
  const carriers: Carrier[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!operation?.responses) continue;
      const op = `${method.toUpperCase()} ${path}`;
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (!/^2/.test(status)) continue;
        const schema = resolve(response)?.content?.['application/json']?.schema;
        const top = topMember(resolve, resourceOf(resolve, schema), ref, member);
        if (top !== undefined && !carriers.some((carrier) => carrier.op === op)) carriers.push({ op, top });
      }
    }
  }
  return carriers;
}

/** A page's items (`{items: [...], hasNext}`, the list envelope) are the resource; otherwise the answer itself is. */
function resourceOf(resolve: (node: unknown) => Json | undefined, schema: unknown): unknown {
  const properties = resolve(schema)?.properties;
  const page = properties?.items && properties?.hasNext ? resolve(properties.items)?.items : undefined;
  return page ?? schema;
}

/** The resource member through which `ref` is reached (`member` itself when the resource is it), if it is. */
function topMember(
  resolve: (node: unknown) => Json | undefined,
  resource: unknown,
  ref: string,
  member: string,
): string | undefined {
  if ((resource as Json | undefined)?.$ref === ref) return member;
  const root = resolve(resource);
  if (!root) return undefined;
  for (const [name, property] of Object.entries<unknown>(propertiesOf(resolve, root))) {
    if (reaches(resolve, property, ref, 0, new Set())) return name;
  }
  return undefined;
}

function propertiesOf(resolve: (node: unknown) => Json | undefined, node: Json): Json {
  const parts = [node, ...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])].map(
    (part: unknown) => resolve(part) ?? {},
  );
  return Object.assign({}, ...parts.map((part) => part.properties ?? {}));
}

function reaches(
  resolve: (node: unknown) => Json | undefined,
  node: unknown,
  ref: string,
  depth: number,
  seen: Set<string>,
): boolean {
  const raw = node as Json | undefined;
  if (!raw || depth > MAX_DEPTH) return false;
  if (raw.$ref === ref) return true;
  if (typeof raw.$ref === 'string') {
    if (seen.has(raw.$ref)) return false;
    seen.add(raw.$ref);
  }
  const resolved = resolve(raw) ?? {};
  const next = [
    ...Object.values<unknown>(resolved.properties ?? {}),
    ...(resolved.items ? [resolved.items] : []),
    ...(typeof resolved.additionalProperties === 'object' ? [resolved.additionalProperties] : []),
    ...(resolved.allOf ?? []),
    ...(resolved.oneOf ?? []),
    ...(resolved.anyOf ?? []),
  ];
  return next.some((child) => reaches(resolve, child, ref, depth + 1, seen));
}
