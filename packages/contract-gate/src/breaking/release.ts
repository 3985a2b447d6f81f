/**
 * Making a release (`npm run contracts:release`): the gate passes over the whole history, the changelog's
 * `## [Unreleased]` entries are stamped with the version and date, and the stamp is committed alone. That
 * commit is the release (./git-history.ts): its contracts are the committed ones, so they
 * must be committed before, and nothing else may be waiting in contracts/.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TwinLookup } from '../project.js';
import { parseChangelog, stampRelease } from './changelog.js';
import { gateHistory } from './history-gate.js';

/** Why no release was made. */
export class ReleaseRefused extends Error {}

/** Stamps and commits a release of the contracts at `root`; returns the version and the commit (if made). */
export async function makeRelease({
  root,
  version: asked,
  date,
  commit = true,
  twins,
}: {
  root: string;
  version?: string | undefined;
  date: string;
  commit?: boolean;
  /** The project's twins (../project.ts). */
  twins?: TwinLookup | undefined;
}): Promise<{ version: string; commit?: string }> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const contracts = path.join(root, 'contracts');
  const changelogFile = path.join(contracts, 'CHANGELOG.md');
  const version = asked ?? String(parseYaml(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8')).info.version);
  const text = readFileSync(changelogFile, 'utf8');
  const changelog = parseChangelog(text);
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new ReleaseRefused(`"${version}" is not a version like 1.2.0.`);
  if (changelog.releases.some((release) => release.version === version))
    throw new ReleaseRefused(
      `contracts/CHANGELOG.md already has ${version}: raise info.version in contracts/openapi.yaml (or pass --version).`,
    );
  if (changelog.unreleased.length === 0)
    throw new ReleaseRefused('"## [Unreleased]" in contracts/CHANGELOG.md is empty: nothing to release.');
  if (git('status', '--porcelain', '--', 'contracts', 'buf.yaml').trim() !== '')
    throw new ReleaseRefused(
      'contracts/ has uncommitted changes: commit them first, so that the release commit holds what the gate passed.',
    );
  const { checks } = await gateHistory({ root, today: date, ...(twins ? { twins } : {}) });
  const blocking = checks.flatMap((check) => check.result.blocking);
  if (blocking.length > 0)
    throw new ReleaseRefused(
      `the gate found ${blocking.length} breaking change(s) (${blocking.map((finding) => `[${finding.rule}] ${finding.item}`).join(', ')}); ` +
        'npm run contracts:breaking says more.',
    );
  writeFileSync(changelogFile, stampRelease(text, version, date));
  git('add', '--', 'contracts/CHANGELOG.md');
  if (!commit) return { version };
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
  return { version, commit: git('rev-parse', 'HEAD').trim() };
}
