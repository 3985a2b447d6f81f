/**
 * Makes a release of the contracts: runs the gate, stamps the changelog's `## [Unreleased]` entries with the
 * version and date, and commits the stamp (../breaking/release.ts). That commit is the release:
 * `npm run contracts:breaking` finds it in git history by its stamp, compares later changes with the
 * contracts as committed there, and checks the release itself against the release before it. Commit the
 * contracts first, so that the release commit holds exactly what the gate passed.
 *
 *   npm run contracts:release                     # version = OpenAPI info.version
 *   npm run contracts:release -- --version 1.1.0  # or name it (then set info.version to match)
 *   npm run contracts:release -- --no-commit      # stamp and stage only (commit it yourself, alone)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeRelease } from '../breaking/release.js';
import { loadProject } from '../project.js';

const { values } = parseArgs({
  options: {
    version: { type: 'string' },
    date: { type: 'string' },
    root: { type: 'string' },
    'no-commit': { type: 'boolean', default: false },
  },
});
const date = values.date ?? new Date().toISOString().slice(0, 10);
// The project at the current directory (npm runs a project's scripts there), or --root.
const root = path.resolve(values.root ?? process.cwd());
try {
  const made = await makeRelease({
    root,
    twins: (await loadProject(root)).twins,
    version: values.version,
    date,
    commit: !values['no-commit'],
  });
  console.log(
    made.commit
      ? `Released ${made.version}: commit ${made.commit.slice(0, 7)} stamps contracts/CHANGELOG.md ${date}.`
      : `Stamped ${made.version} (${date}) and staged contracts/CHANGELOG.md. Commit it alone: that commit is the release.`,
  );
} catch (error) {
  console.error(`Not released: ${(error as Error).message}`);
  process.exitCode = 1;
}
