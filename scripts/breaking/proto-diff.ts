import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Change } from './report.js';

/** The breaking rules of buf.yaml (so the gate and `buf breaking` in a shell agree). */
function breakingConfig(root: string): string {
  const config = parseYaml(execFileSync('cat', [path.join(root, 'buf.yaml')], { encoding: 'utf8' }));
  return JSON.stringify({ version: 'v2', breaking: config.breaking });
}

/**
 * Runs `buf breaking` on the public proto (inventory/v1) of two contract directories. Each side is copied
 * to a scratch module so that only the published contract is compared, with the project's rules.
 */
export function diffProto(root: string, baseContracts: string, headContracts: string): Change[] {
  const scratch = mkdtempSync(path.join(tmpdir(), 'proto-breaking-'));
  try {
    for (const [side, source] of [
      ['base', baseContracts],
      ['head', headContracts],
    ] as const) {
      cpSync(path.join(source, 'inventory'), path.join(scratch, side, 'inventory'), { recursive: true });
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
          breakingConfig(root),
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
    return output
      .split('\n')
      .filter((line) => line.trim().startsWith('{'))
      .map((line) => {
        const finding = JSON.parse(line) as { path: string; start_line?: number; type: string; message: string };
        const field = /field "\d+" with name "(\w+)" on message "(\w+)"/.exec(finding.message);
        const file = path.relative(path.join(scratch, 'head'), finding.path);
        return {
          contract: 'proto' as const,
          item: field ? `${field[2]}.${field[1]}` : finding.type,
          message: `${file}:${finding.start_line ?? 0}: ${finding.message} [${finding.type}]`,
          breaking: true,
          ...(/DELETE/.test(finding.type) ? { removal: true } : {}),
        };
      });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
