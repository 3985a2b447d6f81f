/**
 * Finds input rules typed by hand in src/: a number that is a bound the contracts state for a member,
 * where code compares that member with it (`input.score > 5`, `label.length > 100`) or names a constant
 * after it (`NOTE_MAX_LENGTH = 500`), and a regular expression that holds a pattern of the contracts. The
 * contracts are the only source of a rule; code reads it from what `npm run generate` derives
 * (docs/architecture.md). `npm run lint` runs it; test/architecture.test.ts proves it finds samples.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { graphqlRules, openapiRules, protoRules, type Rules } from '@order-api/contract-gate';
import ts from 'typescript';
import { parse } from 'yaml';
import { sourcesUnder } from './code-size.js';

const NUMERIC = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'];
/** Too common to mean a rule: 0, 1 and 2 are lengths, indexes and signs everywhere. */
const TRIVIAL = new Set([0, 1, 2]);

/** The contracts' rules: each member's bounds by its name in lower case (`score` → 5, 1), and the patterns. */
export interface RuleValues {
  bounds: Map<string, Set<number>>;
  patterns: Set<string>;
}

/** The bounds and patterns the contracts under `contractsDir` state as input rules. */
export function contractRuleValues(contractsDir: string): RuleValues {
  const books = [
    openapiRules(parse(readFileSync(path.join(contractsDir, 'openapi.yaml'), 'utf8'))),
    graphqlRules(readFileSync(path.join(contractsDir, 'schema.graphql'), 'utf8')),
    protoRules(contractsDir),
  ];
  const bounds = new Map<string, Set<number>>();
  const patterns = new Set<string>();
  const add = (item: string, rules: Rules) => {
    const member = (item.split('.').at(-1) ?? item).replace(/_/g, '').toLowerCase();
    for (const keyword of NUMERIC) {
      const value = rules[keyword];
      if (typeof value !== 'number' || TRIVIAL.has(value)) continue;
      if (!bounds.has(member)) bounds.set(member, new Set());
      bounds.get(member)?.add(value);
    }
    if (typeof rules.pattern === 'string') patterns.add(rules.pattern);
  };
  for (const book of books) for (const [item, rules] of book) add(item, rules);
  return { bounds, patterns };
}

/** One rule typed by hand. */
export interface RuleLiteral {
  file: string;
  line: number;
  text: string;
}

const COMPARISONS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

/** The words of code (`input.score`, `LABEL_MAX_LENGTH`, `maxNoteLength`) in lower case. */
const wordsOf = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

/** The literals of `files` that restate a rule of `values`. */
export function ruleLiterals(files: string[], values: RuleValues): RuleLiteral[] {
  const found: RuleLiteral[] = [];
  // A pattern's body, so that `/[A-Za-z0-9._-]{0,63}/` is found inside a longer expression too.
  const bodies = [...values.patterns].map((pattern) => pattern.replace(/^\^/, '').replace(/\$$/, ''));
  const isBoundOf = (code: string, value: number) => wordsOf(code).some((word) => values.bounds.get(word)?.has(value));
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const report = (node: ts.Node) =>
      found.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text: node.parent.getText().slice(0, 80),
      });
    const visit = (node: ts.Node) => {
      if (ts.isNumericLiteral(node)) {
        const other = boundedCode(node);
        if (other !== undefined && isBoundOf(other, Number(node.text))) report(node);
      }
      if (ts.isRegularExpressionLiteral(node) || (ts.isStringLiteral(node) && isRegExpArgument(node))) {
        const text = ts.isRegularExpressionLiteral(node) ? node.text.slice(1, node.text.lastIndexOf('/')) : node.text;
        if (bodies.some((body) => body.length > 4 && text.includes(body))) report(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The code a number bounds: the other side of a comparison, or the name of the constant it sets. */
function boundedCode(node: ts.NumericLiteral): string | undefined {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && COMPARISONS.has(parent.operatorToken.kind))
    return (parent.left === node ? parent.right : parent.left).getText();
  if (ts.isVariableDeclaration(parent)) return parent.name.getText();
  return undefined;
}

function isRegExpArgument(node: ts.StringLiteral): boolean {
  const parent = node.parent;
  return (ts.isNewExpression(parent) || ts.isCallExpression(parent)) && parent.expression.getText() === 'RegExp';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, '..');
  const found = ruleLiterals(
    sourcesUnder(path.join(root, process.argv[2] ?? 'src')),
    contractRuleValues(path.join(root, 'contracts')),
  );
  for (const { file, line, text } of found)
    console.log(`${path.relative(root, file)}:${line} restates a contract rule: ${text}`);
  if (found.length > 0) {
    console.log('Read the rule from what `npm run generate` derives from the contracts (docs/architecture.md).');
    process.exitCode = 1;
  } else console.log('rule literals: none in src/ restates a contract rule');
}
