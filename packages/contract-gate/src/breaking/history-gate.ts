/**
 * The gate over a checkout's history: every release commit against the release before it, then
 * the working contracts against the last release. A release is only a baseline once it passed as a change
 * itself, so a hand-made stamp cannot move the baseline past a breaking change: the stamp makes its commit
 * a release, and the release is checked against its predecessor on every run.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TwinLookup } from '../project.js';
import { type GateResult, loadRetirements, runGate } from './gate.js';
import { type GitRelease, readReleaseHistory } from './git-history.js';
import { historyOf } from './release-history.js';

/** One comparison of the history and its verdict. */
export interface HistoryCheck {
  title: string;
  /** The release checked against its predecessor; undefined for the working contracts. */
  release?: GitRelease;
  result: GateResult;
}

/** The retirements recorded in a checkout (none when it has no contracts/retirements.yaml). */
export function retirementsIn(root: string) {
  const file = path.join(root, 'contracts/retirements.yaml');
  return existsSync(file) ? loadRetirements(file) : [];
}

/** How a release is named in the gate's output. */
export const describeRelease = (release: GitRelease) =>
  `release ${release.version} (${release.commit.slice(0, 7)}, ${release.date}` +
  `${release.source === 'contracts' ? '' : `, read from ${release.source}/ at that commit`})`;

/**
 * Runs the gate over the history of the checkout at `root`: each release after the first against the one
 * before it (its own changelog section, retirements and stamp date), then `headDir` (the working contracts)
 * against the last release. Throws a HistoryError when the history gives no baseline.
 */
export async function gateHistory({
  root,
  today,
  headDir = path.join(root, 'contracts'),
  inspect,
  twins,
}: {
  root: string;
  today: string;
  headDir?: string;
  /** The project's twins (../project.ts), for every comparison of the history. */
  twins?: TwinLookup;
  /** Runs on the working contracts' result while the baseline's directory still exists (caller counts). */
  inspect?: (result: GateResult, dirs: { baseDir: string; headDir: string }) => Promise<void>;
}): Promise<{ releases: GitRelease[]; checks: HistoryCheck[] }> {
  const history = readReleaseHistory({ root });
  try {
    const checks: HistoryCheck[] = [];
    const { releases } = history;
    for (const [index, release] of releases.entries()) {
      const previous = releases[index - 1];
      if (!previous) continue;
      const result = await runGate({
        root: release.root(),
        baseDir: previous.dir(),
        headDir: release.dir(),
        retirements: retirementsIn(release.root()),
        today: release.date,
        changelog: release.changelog,
        releaseVersion: release.version,
        history: historyOf(releases.slice(0, index)),
        ...(twins ? { twins } : {}),
      });
      checks.push({
        title: `The ${describeRelease(release)} compared with ${describeRelease(previous)}`,
        release,
        result,
      });
    }
    const result = await runGate({
      root,
      baseDir: history.base.dir(),
      headDir,
      retirements: retirementsIn(root),
      today,
      history,
      ...(twins ? { twins } : {}),
    });
    await inspect?.(result, { baseDir: history.base.dir(), headDir });
    const label = path.relative(root, headDir) || headDir;
    checks.push({ title: `Contracts in ${label} compared with ${describeRelease(history.base)}`, result });
    return { releases, checks };
  } finally {
    history.dispose();
  }
}
