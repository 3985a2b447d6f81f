/**
 * The input rules of GraphQL (`@constraint`) and of the proto (`buf.validate`), compared between releases
 * as the OpenAPI gate compares JSON Schema constraints (./openapi-schema.ts): a new or lowered upper
 * bound is breaking until a `### Security` bullet names it; any other narrowing (a raised lower bound, a
 * new or changed pattern, format or multiple, newly unique or required) is breaking under any heading.
 *
 * Except when the rule is stated, not new: the last release already stated it (or a narrower one) for a
 * twin of the member in another contract (the project's twins, ../project.ts), the same core input, so the server
 * already refused those values there. Such a rule passes once a `[docs]` or `### Security` bullet of its
 * contract names it (`acknowledge: 'Stated'`), for REST, GraphQL and gRPC alike.
 */
import { isDeepStrictEqual } from 'node:util';
import type { TwinLookup } from '../project.js';
import { type RuleBook, type Rules, rulesOf } from '../rules/contract-rules.js';
import type { Change } from './model.js';

const UPPER = ['maxLength', 'maximum', 'maxItems'];
const LOWER = ['minLength', 'minimum', 'minItems', 'minProperties'];
const EXACT = ['pattern', 'format', 'multipleOf', 'in', 'notIn'];
const FLAGS = ['uniqueItems', 'required'];

/**
 * The narrowed and widened rules of every member present on both sides (a new member's rules narrow
 * nothing a client sent). `required` of GraphQL is its type (`!`), which graphql-inspector judges.
 */
export function compareRules(
  contract: 'graphql' | 'proto',
  base: Map<string, Rules>,
  head: Map<string, Rules>,
): Change[] {
  const out: Change[] = [];
  for (const [item, after] of head) {
    const before = base.get(item);
    if (!before) continue;
    const push = (keyword: string, narrowed: boolean, text: string) =>
      out.push({
        contract,
        item,
        rule: narrowed ? 'request-constraint-narrowed' : 'request-constraint-widened',
        message: `\`${item}\` (request): ${keyword} ${text}`,
        breaking: narrowed,
        ...(narrowed ? { keyword, value: after[keyword] } : {}),
        ...(narrowed && UPPER.includes(keyword) ? { acknowledge: 'Security' as const } : {}),
      });
    for (const keyword of [...UPPER, ...LOWER, ...EXACT, ...FLAGS]) {
      if (keyword === 'required' && contract === 'graphql') continue;
      const [b, h] = [before[keyword], after[keyword]];
      if (isDeepStrictEqual(b, h)) continue;
      const shown = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
      if (UPPER.includes(keyword))
        push(
          keyword,
          h !== undefined && (b === undefined || (h as number) < (b as number)),
          `${shown(b)} → ${shown(h)}`,
        );
      else if (LOWER.includes(keyword))
        push(
          keyword,
          h !== undefined && (b === undefined || (h as number) > (b as number)),
          `${shown(b)} → ${shown(h)}`,
        );
      else if (FLAGS.includes(keyword)) push(keyword, h === true, `${shown(b)} → ${shown(h)}`);
      else
        push(
          keyword,
          h !== undefined,
          `${b === undefined ? 'added' : h === undefined ? 'removed' : 'changed'}: ${shown(h)}`,
        );
    }
  }
  return out;
}

/** Whether `rules` hold `keyword` at least as tightly as `value`. */
function holds(rules: Rules, keyword: string, value: unknown): boolean {
  const stated = rules[keyword];
  if (stated === undefined) return false;
  if (UPPER.includes(keyword)) return (stated as number) <= (value as number);
  if (LOWER.includes(keyword)) return (stated as number) >= (value as number);
  return isDeepStrictEqual(stated, value);
}

/**
 * Whether a narrowed rule only states what the last release stated for a twin of its member: the base
 * rule book holds the same keyword as tight or tighter on some twin.
 */
export function statedByTwin(change: Change, baseBook: RuleBook, twinsOf: TwinLookup = () => []): boolean {
  if (change.keyword === undefined) return false;
  return twinsOf(`${change.contract}:${change.item}`).some((twin) => {
    const rules = rulesOf(baseBook, twin, change.contract);
    return rules !== undefined && holds(rules, change.keyword as string, change.value);
  });
}
