type Json = Record<string, unknown>;

/**
 * The node a local `$ref` (`#/components/…`) points at in the document; `{}` when there is none. Each
 * segment is unescaped as RFC 6901 says (`~1` is `/`, `~0` is `~`).
 */
export function atPointer(document: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, key) => (node[key.replace(/~1/g, '/').replace(/~0/g, '~')] ?? {}) as Json, document);
}
