/**
 * The release gate for the three contracts: compares the working contracts with the last release and
 * fails on any breaking change. The last release is read from git, never from a folder the change could
 * edit: the last commit on the first-parent line of HEAD that stamped a version in contracts/CHANGELOG.md
 * (`npm run contracts:release` makes it; scripts/breaking/git-history.ts). Every release commit in that
 * history is itself checked against the release before it, so a hand-made stamp cannot move the baseline
 * past a breaking change.
 * Removals pass only through a recorded retirement with its evidence (contracts/retirements.yaml and
 * scripts/breaking/retirement.ts); every difference needs an entry under "## [Unreleased]" in
 * contracts/CHANGELOG.md naming each changed or added item (scripts/breaking/changelog.ts, named-items.ts).
 *
 *   npm run contracts:breaking                                  # the working tree against the last release
 *   npm run contracts:breaking -- --root <checkout>             # another checkout
 *   npm run contracts:breaking -- --base <dir> [--head <dir>]   # two directories of contracts (fixtures)
 *
 * Exit codes: 0 no breaking change, 1 breaking changes, 2 the contracts, the rules or the history could not
 * be loaded (a shallow clone, no release in the history).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type GateInput, type GateResult, loadRetirements, runGate } from './breaking/gate.js';
import { type GitRelease, HistoryError, readReleaseHistory } from './breaking/git-history.js';
import { historyOf } from './breaking/release-history.js';
import { wayThrough } from './breaking/report.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    today: { type: 'string' },
    root: { type: 'string' },
  },
});
const root = path.resolve(values.root ?? path.join(import.meta.dirname, '..'));
const today = values.today ?? new Date().toISOString().slice(0, 10);
const retirementsOf = (dir: string) => {
  const file = path.join(dir, 'contracts/retirements.yaml');
  return existsSync(file) ? loadRetirements(file) : [];
};
const short = (release: GitRelease) =>
  `release ${release.version} (${release.commit.slice(0, 7)}, ${release.date}` +
  `${release.source === 'contracts' ? '' : `, read from ${release.source}/ at that commit`})`;

/** Prints one comparison; returns the number of blocking findings. */
function report(result: GateResult, heading: string, { quiet = false } = {}): number {
  console.log(`${heading}\n`);
  if (quiet && result.blocking.length === 0) return 0;
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
    if (!quiet) for (const finding of additive) console.log(`  ok        [${finding.rule}] ${finding.message}`);
  }
  console.log('');
  return result.blocking.length;
}

/** The gate runs of a checkout: each release against the one before it, then the working contracts. */
async function checkHistory(): Promise<number> {
  const history = readReleaseHistory({ root });
  try {
    let blocking = 0;
    const { releases } = history;
    console.log(`Releases in the first-parent history: ${releases.map(short).join('; ')}\n`);
    for (const [index, release] of releases.entries()) {
      const previous = releases[index - 1];
      if (!previous) continue;
      const input: GateInput = {
        root: release.root(),
        baseDir: previous.dir(),
        headDir: release.dir(),
        retirements: retirementsOf(release.root()),
        today: release.date,
        changelog: release.changelog,
        releaseVersion: release.version,
        history: historyOf(releases.slice(0, index)),
      };
      blocking += report(await runGate(input), `The ${short(release)} compared with ${short(previous)}`, {
        quiet: true,
      });
    }
    const headDir = path.resolve(values.head ?? path.join(root, 'contracts'));
    const result = await runGate({
      root,
      baseDir: history.base.dir(),
      headDir,
      retirements: retirementsOf(root),
      today,
      history,
    });
    blocking += report(
      result,
      `Contracts in ${path.relative(root, headDir) || headDir} compared with ${short(history.base)}`,
    );
    return blocking;
  } finally {
    history.dispose();
  }
}

/** One gate run between two directories (`--base`): fixtures and the canary. */
async function checkDirectories(): Promise<number> {
  const baseDir = path.resolve(values.base as string);
  const headDir = path.resolve(values.head ?? path.join(root, 'contracts'));
  if (!existsSync(path.join(baseDir, 'openapi.yaml'))) throw new Error(`cannot read the base contracts in ${baseDir}`);
  const result = await runGate({ root, baseDir, headDir, retirements: retirementsOf(root), today });
  const label = (dir: string) => path.relative(root, dir) || dir;
  return report(result, `Contracts in ${label(headDir)} compared with ${label(baseDir)}`);
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
    const reason = error instanceof HistoryError ? 'no baseline' : 'LOAD FAILURE';
    console.error(`LOAD FAILURE (${reason}): ${(error as Error).message}`);
    return 2;
  }
}

process.exitCode = await main();
