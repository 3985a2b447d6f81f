/**
 * `readReleaseHistory`: the releases of the contracts as git records them. A release is a commit
 * on the first-parent line of the commit under test whose contracts/CHANGELOG.md carries a version stamp
 * (`## [1.1.0] - 2026-12-01`) that its first parent's did not — what `npm run contracts:release` commits.
 * Tags play no part (they may not reach CI's clone), and nothing in the working tree is read: each
 * release's contracts are taken from git at its commit.
 *
 * The legacy release: 1.0.0 (72f2b6b) predates this. Its release snapshot was written to
 * `contracts/released/` beside contracts that had moved on, so the FIRST release of the history, when its
 * tree holds `contracts/released/openapi.yaml`, takes its contracts from that folder, as read from git at
 * that commit. Every later release is read from `contracts/` (`npm run contracts:release` no longer writes
 * the folder, and a folder added later is never read), and is checked against the release before it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry } from '../registry/build-registry.js';
import { parseChangelog } from './changelog.js';
import type { ReleaseHistory, ReleaseInfo } from './release-history.js';

const CHANGELOG = 'contracts/CHANGELOG.md';
const LEGACY_SOURCE = 'contracts/released';

/** A release read from git: its contracts are extracted to a scratch directory on first use. */
export interface GitRelease extends ReleaseInfo {
  /** Where the contracts were read at the commit: `contracts`, or `contracts/released` (the legacy release). */
  source: string;
  /** contracts/CHANGELOG.md at the release commit. */
  changelog: string;
  /** A directory holding the release's contracts (openapi.yaml, schema.graphql, inventory/, …). */
  dir(): string;
  /** A directory holding the release commit's `contracts/` and `buf.yaml`: the root a gate run of it reads. */
  root(): string;
}

/** The releases up to the commit under test, oldest first, and the scratch space their contracts use. */
export interface GitReleaseHistory extends ReleaseHistory {
  releases: GitRelease[];
  base: GitRelease;
  /** Removes the extracted contracts. */
  dispose(): void;
}

/** Why the history cannot give a baseline: the gate exits 2 with this message. */
export class HistoryError extends Error {}

function git(root: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(input === undefined ? {} : { input }),
  });
}

/** The changelog's blob id at each commit (undefined where the file is missing), in one git call. */
function changelogBlobs(root: string, commits: string[]): (string | undefined)[] {
  const out = git(root, ['cat-file', '--batch-check'], commits.map((commit) => `${commit}:${CHANGELOG}\n`).join(''));
  return out
    .trimEnd()
    .split('\n')
    .map((line) => (line.endsWith(' missing') ? undefined : line.split(' ')[0]));
}

/** The text of each blob, in one git call. */
function blobTexts(root: string, blobs: string[]): Map<string, string> {
  const texts = new Map<string, string>();
  if (blobs.length === 0) return texts;
  const out = execFileSync('git', ['cat-file', '--batch'], {
    cwd: root,
    input: blobs.map((blob) => `${blob}\n`).join(''),
    maxBuffer: 256 * 1024 * 1024,
  });
  let at = 0;
  for (const blob of blobs) {
    const headerEnd = out.indexOf(10, at);
    const size = Number(out.subarray(at, headerEnd).toString('utf8').split(' ')[2]);
    texts.set(blob, out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
    at = headerEnd + 1 + size + 1;
  }
  return texts;
}

const stamps = (text: string | undefined) => (text === undefined ? [] : parseChangelog(text).releases);

/**
 * Reads the releases on the first-parent line of `ref` (HEAD by default), oldest first; `base` is the last
 * of them, `ref` itself included. Throws a HistoryError for a shallow clone, a directory outside git, or a
 * history without a release.
 */
export function readReleaseHistory({ root, ref = 'HEAD' }: { root: string; ref?: string }): GitReleaseHistory {
  let shallow: string;
  try {
    shallow = git(root, ['rev-parse', '--is-shallow-repository']).trim();
  } catch {
    throw new HistoryError(
      `${root} is not a git checkout: the baseline is the last release in git history (clone the repository, or pass --base <dir>)`,
    );
  }
  if (shallow === 'true')
    throw new HistoryError(
      'the clone is shallow, so the releases in its history cannot all be read: run `git fetch --unshallow` ' +
        '(CI: clone with full history, e.g. actions/checkout with fetch-depth: 0)',
    );
  const commits = git(root, ['rev-list', '--first-parent', ref]).trim().split('\n').reverse();
  const blobs = changelogBlobs(root, commits);
  const texts = blobTexts(root, [...new Set(blobs.filter((blob): blob is string => blob !== undefined))]);
  const scratch: string[] = [];
  const releases: GitRelease[] = [];
  let known = new Set<string>();
  commits.forEach((commit, index) => {
    const blob = blobs[index];
    const text = blob === undefined ? undefined : texts.get(blob);
    const stamped = stamps(text);
    const added = stamped.find((stamp) => !known.has(stamp.version));
    known = new Set(stamped.map((stamp) => stamp.version));
    if (added && text !== undefined)
      releases.push(gitRelease(root, commit, added, text, { legacy: releases.length === 0, scratch }));
  });
  const base = releases.at(-1);
  if (!base)
    throw new HistoryError(
      `no release in the first-parent history of ${ref}: no commit stamps a version ("## [x.y.z] - YYYY-MM-DD") in ` +
        `${CHANGELOG}. Fetch the history of main (git fetch origin main), or make the first release with npm run contracts:release`,
    );
  return {
    releases,
    base,
    dispose: () => {
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function gitRelease(
  root: string,
  commit: string,
  stamp: { version: string; date: string },
  changelog: string,
  { legacy: first, scratch }: { legacy: boolean; scratch: string[] },
): GitRelease {
  let legacy = first;
  try {
    if (first) git(root, ['cat-file', '-e', `${commit}:${LEGACY_SOURCE}/openapi.yaml`]);
  } catch {
    legacy = false;
  }
  const source = legacy ? LEGACY_SOURCE : 'contracts';
  let extracted: string | undefined;
  const extract = () => {
    if (extracted) return extracted;
    const dir = mkdtempSync(path.join(tmpdir(), `release-${stamp.version}-`));
    scratch.push(dir);
    const paths = ['contracts', 'buf.yaml'].filter((name) => {
      try {
        git(root, ['cat-file', '-e', `${commit}:${name}`]);
        return true;
      } catch {
        return false;
      }
    });
    const tar = execFileSync('git', ['archive', '--format=tar', commit, ...paths], {
      cwd: root,
      maxBuffer: 256 * 1024 * 1024,
    });
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    extracted = dir;
    return dir;
  };
  let registry: ReturnType<typeof buildRegistry>['registry'] | undefined;
  const release: GitRelease = {
    version: stamp.version,
    date: stamp.date,
    commit,
    source,
    changelog,
    root: extract,
    dir: () => path.join(extract(), source),
    registry: () => {
      registry ??= buildRegistry(release.dir()).registry;
      return registry;
    },
    file: (pathInContracts) => {
      try {
        return git(root, ['show', `${commit}:${source}/${pathInContracts}`]);
      } catch {
        return undefined;
      }
    },
  };
  return release;
}
