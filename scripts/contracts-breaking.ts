/**
 * The release gate for the three contracts: compares the working contracts with the last released ones
 * (contracts/released/, updated only by `npm run contracts:release`) and fails on any breaking change.
 * Removals pass only through a recorded retirement with its evidence (contracts/retirements.yaml and
 * scripts/breaking/retirement.ts: deprecated in the baseline, past its sunset, a usage export of zero use); every
 * difference needs an entry under "## [Unreleased]" in contracts/CHANGELOG.md (see scripts/breaking/changelog.ts).
 *
 *   npm run contracts:breaking                      # against contracts/released
 *   npm run contracts:breaking -- --base <dir>      # against another directory of contracts
 *   BASE_REF=v1.0.0 npm run contracts:breaking      # against the contracts of a git ref
 *
 * Exit codes: 0 no breaking change, 1 breaking changes, 2 the contracts or the rules could not be loaded.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRetirements, runGate } from './breaking/gate.js';
import { wayThrough } from './breaking/report.js';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { base: { type: 'string' }, head: { type: 'string' }, today: { type: 'string' } },
});

function contractsAtRef(ref: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'contracts-base-'));
  for (const file of ['openapi.yaml', 'schema.graphql', 'inventory/v1/inventory.proto']) {
    const text = execFileSync('git', ['show', `${ref}:contracts/${file}`], { cwd: root, encoding: 'utf8' });
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

async function main(): Promise<number> {
  let baseDir: string;
  let scratch: string | undefined;
  let label: string;
  try {
    if (process.env.BASE_REF && !values.base) {
      scratch = contractsAtRef(process.env.BASE_REF);
      baseDir = scratch;
      label = `git ${process.env.BASE_REF}`;
    } else {
      baseDir = path.resolve(values.base ?? path.join(root, 'contracts/released'));
      label = path.relative(root, baseDir) || baseDir;
    }
  } catch (error) {
    console.error(`LOAD FAILURE: cannot read the base contracts: ${(error as Error).message}`);
    return 2;
  }
  const headDir = path.resolve(values.head ?? path.join(root, 'contracts'));
  try {
    const result = await runGate({
      root,
      baseDir,
      headDir,
      retirements: loadRetirements(path.join(root, 'contracts/retirements.yaml')),
      today: values.today ?? new Date().toISOString().slice(0, 10),
    });
    console.log(`Contracts in ${path.relative(root, headDir) || headDir} compared with ${label}\n`);
    for (const contract of ['openapi', 'graphql', 'proto'] as const) {
      const mine = result.findings.filter((finding) => finding.contract === contract);
      const blocking = mine.filter((finding) => result.blocking.includes(finding));
      const passed = mine.filter((finding) => finding.retiredBy || finding.acknowledged);
      const additive = mine.filter((finding) => !finding.breaking);
      console.log(
        `${contract}: ${blocking.length} breaking, ${passed.length} retired or acknowledged, ${additive.length} non-breaking`,
      );
      for (const finding of blocking) {
        console.log(`  BREAKING  [${finding.rule}] ${finding.message}`);
        if (finding.refused) console.log(`            retirement refused: ${finding.refused}`);
        console.log(`            way through: ${wayThrough(finding)}`);
      }
      for (const finding of passed) {
        const r = finding.retiredBy;
        console.log(
          r
            ? `  RETIRED   ${finding.message} (${r.registryItem}: deprecated ${r.verdict.deprecated}, sunset ${r.verdict.sunset}, ` +
                `${r.verdict.quietDays} quiet days measured to ${r.verdict.measuredTo} in ${r.evidence})`
            : `  ACKED     ${finding.message} (named in the changelog)`,
        );
      }
      for (const finding of additive) console.log(`  ok        [${finding.rule}] ${finding.message}`);
    }
    if (result.blocking.length > 0) {
      console.log(
        `\n${result.blocking.length} breaking change(s). Change by adding (keep the old item, add the new one beside it); ` +
          'remove only after deprecating, measuring use down to zero and recording the retirement; ' +
          'cut a version (/v2) only when adding is not enough.',
      );
      return 1;
    }
    console.log('\nNo breaking change.');
    return 0;
  } catch (error) {
    console.error(`LOAD FAILURE: ${(error as Error).message}`);
    return 2;
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
