/**
 * The regular-expression engine of the proto contract's `string.pattern` rules (and CEL's `matches()`),
 * given to protovalidate as its `regexMatch`. Its default, RE2, matches any pattern in time linear in the
 * text; it also costs about 0.7 µs and 2 KB of garbage per match (a `Set` of automaton states per step),
 * on every call.
 *
 * A pattern of one simple shape runs on JavaScript's `RegExp` instead, with the `u` flag:
 * - anchored at both ends (`^…$`);
 * - ASCII letters, digits, space, `_` or `@`, or an escaped syntax character, alone or in a bracket class
 *   (ranges allowed, never negated, no `\d`-style or POSIX classes);
 * - at most one of them repeated a varying number of times (`?`, `*`, `+`, `{m,}`, `{m,n}`; `{n}` is fixed).
 *
 * Such a pattern means the same to both engines: ASCII atoms, code points as RE2 reads text, and `^`/`$`
 * at the text's ends only. It cannot backtrack beyond linear time: one start position, and one varying
 * atom whose every split is checked once. This is protovalidate's own reasoning for its fixed formats
 * (`native/string.ts`: "anchored, plain character classes with bounded repetition"), and it is how ajv
 * already runs the same patterns of the OpenAPI contract. Every pattern of the contracts today has this
 * shape; any other pattern, or one `RegExp` will not compile, stays on RE2 (test/contracts/pattern-match.test.ts).
 */
import { RE2JS } from '@bufbuild/re2';

/** An atom of a simple pattern and its repetition: [literal or class, quantifier, min, `,max`, max]. */
const ATOM =
  /(?:[A-Za-z0-9 _@]|\\[\\^$.|?*+()[\]{}/]|\[(?:[A-Za-z0-9 _.@+-]|\\[\\^$.|?*+()[\]{}/-])+\])(\?|\*|\+|\{(\d{1,3})(,(\d{0,3}))?\})?/y;

/** Whether `pattern` has the simple shape above. */
export function isSimplePattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return false;
  const body = pattern.slice(1, -1);
  let varying = 0;
  ATOM.lastIndex = 0;
  while (ATOM.lastIndex < body.length) {
    const atom = ATOM.exec(body);
    if (!atom) return false;
    const [, quantifier, min, comma, max] = atom;
    const fixed = quantifier === undefined || (min !== undefined && comma === undefined);
    if (!fixed && !(comma !== undefined && max === min)) varying += 1;
  }
  return body.length > 0 && varying <= 1;
}

/** Compiles `pattern` on the engine its shape allows; throws when RE2 cannot compile it either. */
function compile(pattern: string): (text: string) => boolean {
  if (isSimplePattern(pattern)) {
    try {
      const regex = new RegExp(pattern, 'u');
      return (text) => regex.test(text);
    } catch {
      // Not valid JavaScript syntax (RE2 accepts a few escapes `u` refuses): RE2 decides.
    }
  }
  const re2 = RE2JS.compile(pattern);
  return (text) => re2.test(text);
}

// The contract's patterns are few and fixed; CEL's `matches()` may build patterns from input, so the cache
// starts afresh past this bound (as protovalidate's own does).
const CACHE_LIMIT = 1024;
const compiled = new Map<string, (text: string) => boolean>();

/** protovalidate's `RegexMatcher`: whether `text` contains a match of `pattern`. */
export function patternMatch(pattern: string, text: string): boolean {
  let test = compiled.get(pattern);
  if (test === undefined) {
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    test = compile(pattern);
    compiled.set(pattern, test);
  }
  return test(text);
}
