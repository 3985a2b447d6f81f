/**
 * The release gate for the three contracts: compares the working contracts with the last release and
 * fails on any breaking change. The last release is read from git, never from a folder the change could
 * edit: the last commit on the first-parent line of HEAD that stamped a version in contracts/CHANGELOG.md
 * (`npm run contracts:release` makes it; ../breaking/git-history.ts). Every release commit in that
 * history is itself checked against the release before it, so a hand-made stamp cannot move the baseline
 * past a breaking change.
 * Removals pass only through a recorded retirement with its evidence (contracts/retirements.yaml and
 * ../breaking/retirement.ts); every difference needs an entry under "## [Unreleased]" in
 * contracts/CHANGELOG.md naming each changed or added item (../breaking/changelog.ts, named-items.ts).
 *
 *   npm run contracts:breaking                                  # the working tree against the last release
 *   npm run contracts:breaking -- --root <checkout>             # another checkout
 *   npm run contracts:breaking -- --base <dir> [--head <dir>]   # two directories of contracts (fixtures)
 *   DATABASE_URL=… npm run contracts:breaking                   # and, per breaking finding, the callers it
 *                                                               # would break (the project's named record,
 *                                                               # contract-gate.config.ts)
 *   npm run contracts:breaking -- --usage shapes.json           # the same from a signed export
 *
 * Exit codes: 0 no breaking change, 1 breaking changes, 2 the contracts, the rules or the history could not
 * be loaded (a shallow clone, no release in the history).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type CallerCount, callerCountLines, callerCounts } from '../breaking/caller-counts.js';
import { type GateResult, runGate } from '../breaking/gate.js';
import { HistoryError } from '../breaking/git-history.js';
import { describeRelease, gateHistory, retirementsIn } from '../breaking/history-gate.js';
import { printComparison } from '../breaking/report.js';
import { readShapeExport, type ShapeReader } from '../impact/shape-callers.js';
import { type LiveRecords, loadProject } from '../project.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    today: { type: 'string' },
    root: { type: 'string' },
    usage: { type: 'string' },
    'evidence-key': { type: 'string' },
  },
});
// The project at the current directory (npm runs a project's scripts there), or --root.
const root = path.resolve(values.root ?? process.cwd());
const project = await loadProject(root);
const today = values.today ?? new Date().toISOString().slice(0, 10);
/** The window of the caller counts, as `contracts:impact`'s default. */
const CALLER_DAYS = 30;
/** The gate runs of a checkout: each release against the one before it, then the working contracts. */
async function checkHistory(): Promise<number> {
  const headDir = values.head ? path.resolve(values.head) : undefined;
  let counts: CallerCount[] = [];
  // Only when the owner names the record: an implicit one (./data) may be held by a running server.
  const records = project.records?.named() ? project.records : undefined;
  const inspect =
    records || values.usage
      ? async (result: GateResult, dirs: { baseDir: string; headDir: string }) => {
          const breaking = result.findings.filter((finding) => finding.breaking);
          const count = (reader: ShapeReader) => callerCounts(breaking, { ...dirs, days: CALLER_DAYS, reader });
          counts = values.usage
            ? await count(readShapeExport(values.usage, dirs.baseDir, values['evidence-key']))
            : await (records as LiveRecords).open((record) => count(record.shapes));
        }
      : undefined;
  const { releases, checks } = await gateHistory({
    root,
    today,
    ...(headDir ? { headDir } : {}),
    ...(project.twins ? { twins: project.twins } : {}),
    inspect,
  });
  console.log(`Releases in the first-parent history: ${releases.map(describeRelease).join('; ')}\n`);
  const blocking = checks.reduce(
    (sum, check) => sum + printComparison(check.result, check.title, { quiet: Boolean(check.release) }),
    0,
  );
  for (const line of callerCountLines(counts, CALLER_DAYS)) console.log(line);
  return blocking;
}

/** One gate run between two directories (`--base`): fixtures and the canary. */
async function checkDirectories(): Promise<number> {
  const baseDir = path.resolve(values.base as string);
  const headDir = path.resolve(values.head ?? path.join(root, 'contracts'));
  if (!existsSync(path.join(baseDir, 'openapi.yaml'))) throw new Error(`cannot read the base contracts in ${baseDir}`);
  const result = await runGate({
    root,
    baseDir,
    headDir,
    retirements: retirementsIn(root),
    today,
    ...(project.twins ? { twins: project.twins } : {}),
  });
  const label = (dir: string) => path.relative(root, dir) || dir;
  return printComparison(result, `Contracts in ${label(headDir)} compared with ${label(baseDir)}`);
}

async function main(): Promise<number> {
  try {
    const blocking = values.base ? await checkDirectories() : await checkHistory();
    if (blocking > 0) {
      console.log(
        `${blocking} breaking change(s). Change by adding (keep the old item, add the new one beside it); ` +
          'remove only after deprecating, measuring use down to zero and recording the retirement; ' +
          'cut a version (/v2) only when adding is not enough.',
      );
      return 1;
    }
    console.log('No breaking change.');
    return 0;
  } catch (error) {
    const kind = error instanceof HistoryError ? 'LOAD FAILURE (no baseline in git history)' : 'LOAD FAILURE';
    console.error(`${kind}: ${(error as Error).message}`);
    return 2;
  }
}

process.exitCode = await main();
