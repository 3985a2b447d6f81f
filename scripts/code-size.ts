/**
 * The size rule of src/: no file over 250 lines, no function over 80. A function here is a
 * declaration, a function expression, an arrow function or a method, measured from its first to its last
 * line. `npm run lint` runs it; exits 1 and lists what is over.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 250;
export const MAX_FUNCTION_LINES = 80;

/** One thing over its limit. */
export interface Oversize {
  file: string;
  line: number;
  what: string;
  lines: number;
  limit: number;
}

/** What in these TypeScript sources is over its limit. */
export function oversized(files: string[]): Oversize[] {
  const found: Oversize[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
    const fileLines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    if (fileLines > MAX_FILE_LINES) {
      found.push({ file, line: 1, what: 'file', lines: fileLines, limit: MAX_FILE_LINES });
    }
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
        if (lines > MAX_FUNCTION_LINES) {
          found.push({ file, line: lineOf(node.getStart()), what: nameOf(node), lines, limit: MAX_FUNCTION_LINES });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return `function ${named.name.getText()}`;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return `function ${parent.name.getText()}`;
  }
  return 'anonymous function';
}

/** The TypeScript sources under a folder (tests beside the code excluded). */
export function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = oversized(sourcesUnder(process.argv[2] ?? 'src'));
  for (const over of found) {
    console.error(`${over.file}:${over.line} ${over.what}: ${over.lines} lines (at most ${over.limit})`);
  }
  if (found.length > 0) process.exit(1);
  console.log(`code size: no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`);
}
