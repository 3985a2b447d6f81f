import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { protoRulesOfModule, type Rules } from '../rules/contract-rules.js';
import { compareRules } from './input-rules.js';
import type { Change } from './model.js';

/** Connect and gRPC-JSON clients read field and enum value names: these rules must stay in force. */
const JSON_RULES = ['FIELD_SAME_JSON_NAME', 'FIELD_SAME_NAME', 'ENUM_VALUE_SAME_NAME'];
const JSON_CATEGORIES = ['FILE', 'PACKAGE', 'WIRE_JSON'];

/** The breaking rules of buf.yaml (so the gate and `buf breaking` in a shell agree), checked to cover JSON names. */
function breakingConfig(root: string): string {
  const config = parseYaml(readFileSync(path.join(root, 'buf.yaml'), 'utf8'));
  const use: string[] = config.breaking?.use ?? [];
  const except: string[] = config.breaking?.except ?? [];
  const missing = JSON_RULES.filter(
    (rule) =>
      except.includes(rule) || !(use.includes(rule) || use.some((category) => JSON_CATEGORIES.includes(category))),
  );
  if (missing.length > 0)
    throw new Error(
      `buf.yaml's breaking rules must check JSON names (Connect clients speak JSON); missing: ${missing.join(', ')}`,
    );
  return JSON.stringify({ version: 'v2', breaking: config.breaking });
}

/**
 * Copies a contracts directory's public proto (inventory/) into `target`, each package prefixed when
 * batching, and the protovalidate rules it imports (buf/validate/) into `imports`, shared by the batch.
 */
function copyProto(source: string, target: string, prefix: string, imports: string): void {
  cpSync(path.join(source, 'inventory'), target, { recursive: true });
  const rules = path.join(source, 'buf');
  if (existsSync(rules) && !existsSync(path.join(imports, 'buf')))
    cpSync(rules, path.join(imports, 'buf'), { recursive: true });
  if (!prefix) return;
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? walk(file) : file.endsWith('.proto') ? [file] : [];
    });
  for (const file of walk(target)) {
    const text = readFileSync(file, 'utf8')
      .replace(/^(\s*package\s+)([\w.]+)\s*;/m, `$1${prefix}.$2;`)
      .replace(/import\s+"inventory\//g, `import "${prefix}/inventory/`);
    writeFileSync(file, text);
  }
}

interface BufFinding {
  path: string;
  start_line?: number;
  type: string;
  message: string;
}

/** One pair of contract directories to compare. */
export interface ProtoPair {
  baseDir: string;
  headDir: string;
}

/**
 * Runs `buf breaking` once over many base/head pairs (a corpus runs in one process): each pair becomes a
 * directory `cN/` of one scratch module per side, with its packages prefixed `cN.` so they cannot clash.
 */
export function diffProtoMany(root: string, pairs: ProtoPair[]): Change[][] {
  const config = breakingConfig(root);
  const scratch = mkdtempSync(path.join(tmpdir(), 'proto-breaking-'));
  const batch = pairs.length > 1;
  try {
    pairs.forEach((pair, index) => {
      const prefix = batch ? `c${index}` : '';
      copyProto(pair.baseDir, path.join(scratch, 'base', prefix, 'inventory'), prefix, path.join(scratch, 'base'));
      copyProto(pair.headDir, path.join(scratch, 'head', prefix, 'inventory'), prefix, path.join(scratch, 'head'));
    });
    // A side with no buf/validate of its own (an older release, a corpus edit) compiles with the project's.
    for (const side of ['base', 'head']) {
      const rules = path.join(root, 'contracts/buf');
      if (!existsSync(path.join(scratch, side, 'buf')) && existsSync(rules))
        cpSync(rules, path.join(scratch, side, 'buf'), { recursive: true });
    }
    let output = '';
    try {
      execFileSync(
        'buf',
        [
          'breaking',
          path.join(scratch, 'head'),
          '--against',
          path.join(scratch, 'base'),
          '--config',
          config,
          '--error-format',
          'json',
        ],
        { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch (error) {
      const failure = error as { status?: number; stdout?: string; stderr?: string };
      // buf exits 100 for breaking changes; anything else is a failure to run.
      if (failure.status !== 100) throw new Error(`buf breaking failed to run: ${failure.stderr || failure.stdout}`);
      output = failure.stdout ?? '';
    }
    const results: Change[][] = pairs.map(() => []);
    // The buf.validate rules, which `buf breaking` does not compare: as the other contracts' rules are.
    const rulesOf = (side: 'base' | 'head') => protoRulesOfModule(path.join(scratch, side));
    const [baseRules, headRules] = [rulesOf('base'), rulesOf('head')];
    pairs.forEach((_, index) => {
      const ofPair = (rules: Map<string, Rules>) => {
        const prefix = batch ? `c${index}/` : '';
        return new Map(
          [...rules].filter(([item]) => item.startsWith(prefix)).map(([item, r]) => [item.slice(prefix.length), r]),
        );
      };
      results[index]?.push(...compareRules('proto', ofPair(baseRules), ofPair(headRules)));
    });
    for (const line of output.split('\n')) {
      if (!line.trim().startsWith('{')) continue;
      const finding = JSON.parse(line) as BufFinding;
      // A proto that does not compile is a failure to load, and in a batch it hides every other finding.
      if (finding.type === 'COMPILE')
        throw new Error(`buf cannot compile ${finding.path}:${finding.start_line ?? 0}: ${finding.message}`);
      let file = path.relative(path.join(scratch, 'head'), path.resolve(scratch, 'head', finding.path));
      if (file.startsWith('..'))
        file = path.relative(path.join(scratch, 'base'), path.resolve(scratch, 'base', finding.path));
      let index = 0;
      let message = finding.message;
      const batched = /^c(\d+)\/(.*)$/.exec(file);
      if (batch && batched) {
        index = Number(batched[1]);
        file = batched[2] ?? file;
        message = message.replaceAll(`c${index}.`, '');
      }
      const field = /field "\d+" with name "(\w+)" on message "(\w+)"/.exec(message);
      results[index]?.push({
        contract: 'proto',
        item: field ? `${field[2]}.${field[1]}` : finding.type,
        rule: finding.type,
        message: `${file}:${finding.start_line ?? 0}: ${message} [${finding.type}]`,
        breaking: true,
        ...(/DELETE/.test(finding.type) ? { removal: true } : {}),
      });
    }
    return results;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs `buf breaking` on the public proto (inventory/) of two contract directories, with the project's rules. */
export function diffProto(root: string, baseContracts: string, headContracts: string): Change[] {
  return diffProtoMany(root, [{ baseDir: baseContracts, headDir: headContracts }])[0] ?? [];
}
