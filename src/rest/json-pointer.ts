type Json = Record<string, unknown>;

/** The node a local `$ref` (`#/components/…`) points at in the document; `{}` when there is none. */
export function atPointer(document: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, key) => (node[key] ?? {}) as Json, document);
}
