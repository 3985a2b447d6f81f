/**
 * Makes a release of the contracts: runs the gate, stamps the changelog's `## [Unreleased]` entries with the
 * version and date, and commits the stamp. That commit is the release: `npm run contracts:breaking` finds it
 * in git history by its stamp and compares later changes with the contracts as committed there
 * (scripts/breaking/git-history.ts), and checks the release itself against the release before it. The
 * contracts must be committed first, so that the release commit holds exactly what the gate passed.
 *
 *   npm run contracts:release                     # version = OpenAPI info.version
 *   npm run contracts:release -- --version 1.1.0  # or name it (then set info.version to match)
 *   npm run contracts:release -- --no-commit      # stamp and stage only (commit it yourself, alone)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { parseChangelog, stampRelease } from './breaking/changelog.js';

const { values } = parseArgs({
  options: {
    version: { type: 'string' },
    date: { type: 'string' },
    root: { type: 'string' },
    'no-commit': { type: 'boolean', default: false },
  },
});
const root = path.resolve(values.root ?? path.join(import.meta.dirname, '..'));
const contracts = path.join(root, 'contracts');
const changelogFile = path.join(contracts, 'CHANGELOG.md');
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

function fail(message: string): never {
  console.error(`\nNot released: ${message}`);
  process.exit(1);
}

const version =
  values.version ?? String(parseYaml(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8')).info.version);
const date = values.date ?? new Date().toISOString().slice(0, 10);
const changelogText = readFileSync(changelogFile, 'utf8');
const changelog = parseChangelog(changelogText);
if (!/^\d+\.\d+\.\d+$/.test(version)) fail(`"${version}" is not a version like 1.2.0.`);
if (changelog.releases.some((release) => release.version === version))
  fail(
    `contracts/CHANGELOG.md already has ${version}: raise info.version in contracts/openapi.yaml (or pass --version).`,
  );
if (changelog.unreleased.length === 0)
  fail('"## [Unreleased]" in contracts/CHANGELOG.md is empty: nothing to release.');
if (git('status', '--porcelain', '--', 'contracts', 'buf.yaml').trim() !== '')
  fail('contracts/ has uncommitted changes: commit them first, so that the release commit holds what the gate passed.');

try {
  execFileSync('npx', ['tsx', path.join(import.meta.dirname, 'contracts-breaking.ts'), '--root', root], {
    cwd: root,
    stdio: 'inherit',
  });
} catch {
  fail('the gate found breaking changes or could not run.');
}
writeFileSync(changelogFile, stampRelease(changelogText, version, date));
git('add', '--', 'contracts/CHANGELOG.md');
if (values['no-commit']) {
  console.log(
    `\nStamped ${version} (${date}) and staged contracts/CHANGELOG.md. Commit it alone: that commit is the release.`,
  );
} else {
  git(
    'commit',
    '--quiet',
    '-m',
    `Contracts ${version}`,
    '-m',
    'Made by npm run contracts:release.',
    '--',
    'contracts/CHANGELOG.md',
  );
  console.log(
    `\nReleased ${version}: commit ${git('rev-parse', '--short', 'HEAD').trim()} stamps contracts/CHANGELOG.md ${date}.`,
  );
}
