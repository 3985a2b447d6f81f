/**
 * Text rules shared by every transport. PostgreSQL cannot store U+0000 in `text` or `jsonb`, and no field
 * of this API has a use for it, so a NUL character anywhere in the input is the caller's error.
 */

/** Where the first string holding U+0000 is in `value` (a JSON pointer below `at`), or undefined. */
export function findNulCharacter(value: unknown, at = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, `${at}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) {
      if (name.includes('\u0000')) return `${at}/${name.replaceAll('\u0000', '\\u0000')}`;
      const found = findNulCharacter(member, `${at}/${name}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The message of a violation for a string holding U+0000. */
export const NUL_CHARACTER_MESSAGE = 'must not contain a NUL character (U+0000)';
