/**
 * JSON Merge Patch (RFC 7396) over a flat set of writable fields: a member the patch leaves out (undefined)
 * keeps its current value; one it gives (`null` included, which clears an optional field) replaces it. Only
 * the fields of `current` are read from the patch.
 */
export function mergePatch<T extends object>(current: T, patch: Partial<T>): T {
  const next = { ...current };
  for (const key of Object.keys(current) as Array<keyof T>) {
    const value = patch[key];
    if (value !== undefined) next[key] = value as T[keyof T];
  }
  return next;
}
