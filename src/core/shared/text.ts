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

/**
 * How deep a JSON body or a GraphQL variable may nest (objects and arrays). The deepest input the contracts
 * describe nests 4 levels; deeper input is refused before anything walks it, so no walk can exhaust the stack.
 */
export const MAX_INPUT_DEPTH = 32;

/** The violation message of input nested deeper than MAX_INPUT_DEPTH. */
export const INPUT_DEPTH_MESSAGE = `must not nest deeper than ${MAX_INPUT_DEPTH} levels of objects and arrays`;

/** Whether a parsed JSON value nests objects and arrays deeper than `max` (counted without recursion). */
export function nestsDeeperThan(value: unknown, max = MAX_INPUT_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const member of Array.isArray(current) ? current : Object.values(current)) {
      if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
    }
  }
  return false;
}
