/**
 * The engine of the proto contract's patterns (src/grpc/pattern-match.ts): the contract's patterns run on
 * RegExp and answer as RE2 does on any text, and every other pattern keeps RE2's meaning.
 */
import path from 'node:path';
import { RE2JS } from '@bufbuild/re2';
import { fc } from '@fast-check/vitest';
import { protoRules } from '@order-api/contract-gate';
import { describe, expect, it } from 'vitest';
import { isSimplePattern, patternMatch } from '../../src/grpc/pattern-match.js';

const contracts = path.resolve(import.meta.dirname, '../../contracts');
const patterns = [...new Set([...protoRules(contracts).values()].map((rules) => rules.pattern))].filter(
  (pattern): pattern is string => typeof pattern === 'string',
);

/** Text around a pattern's edges: matches, each with one unit more, fewer or changed, and odd code points. */
function textsNear(pattern: string) {
  const odd = fc.constantFrom(
    '',
    ' ',
    '\n',
    '\r',
    '\u0000',
    '\u00a0',
    '\u2028',
    'ß',
    'Ａ',
    '\u212a',
    '😀',
    '-',
    '.',
    '_',
  );
  const matching = fc.stringMatching(new RegExp(pattern, 'u'));
  return fc.oneof(
    matching,
    fc.tuple(matching, fc.nat(), odd).map(([text, at, extra]) => {
      const index = at % (text.length + 1);
      return text.slice(0, index) + extra + text.slice(index);
    }),
    fc.tuple(matching, fc.nat()).map(([text, at]) => {
      const index = at % Math.max(text.length, 1);
      return text.slice(0, index) + text.slice(index + 1);
    }),
    fc.string({ unit: 'binary', maxLength: 80 }),
  );
}

describe('the engine of the proto contract patterns', () => {
  it('runs every pattern of the proto contracts on RegExp', () => {
    expect(patterns.length).toBeGreaterThan(0);
    // A pattern outside the simple shape still works, on RE2: list it here when that is meant.
    expect(patterns.filter((pattern) => !isSimplePattern(pattern))).toEqual([]);
  });

  it.each(patterns)('answers %s as RE2 does', (pattern) => {
    const re2 = RE2JS.compile(pattern);
    fc.assert(
      fc.property(textsNear(pattern), (text) => patternMatch(pattern, text) === re2.test(text)),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['^[1-9][0-9]{0,15}$', true],
    ['^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', true],
    ['^ab{3}c{2,2}[x-z]?$', true],
    ['^a+b+$', false], // two atoms repeated a varying number of times
    ['^(a|a)*$', false], // a group and an alternation
    ['[a-z]{1,3}$', false], // unanchored at the start
    ['^[a-z]{1,3}', false], // unanchored at the end
    ['^a.b$', false], // `.` excludes other line ends in RegExp than in RE2
    ['^\\s$', false],
    ['^[^a]$', false],
    ['^[[:alpha:]]$', false],
    ['^a{1,5000}$', false], // a repetition RE2 refuses
  ])('takes %s as simple: %s', (pattern, simple) => {
    expect(isSimplePattern(pattern)).toBe(simple);
  });

  it.each([
    ['^[[:alpha:]]+$', 'abc', true],
    ['^\\s$', '\u00a0', false],
    ['^a.b$', 'a\u2028b', true],
    ['^(?i)abc$', 'ABC', true],
  ])('keeps RE2 for %s on %j', (pattern, text, expected) => {
    // Each of these answers otherwise on RegExp (or does not compile there).
    expect(patternMatch(pattern, text)).toBe(expected);
    expect(RE2JS.compile(pattern).test(text)).toBe(expected);
  });
});
