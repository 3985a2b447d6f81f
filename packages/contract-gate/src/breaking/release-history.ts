/**
 * The release history the gate reads: the releases made by `npm run contracts:release`, found
 * in git by their changelog stamp, oldest first. The gate's baseline is the last of them before the change
 * under test; retirements read from it when the deprecation was first released and which evidence key was
 * committed at the baseline.
 *
 * This file holds the shared shape and the in-memory form (a directory of contracts as one release, for
 * `--base` fixtures and tests); `readReleaseHistory` (git) is built beside it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { buildRegistry } from '../registry/build-registry.js';

/** One release: the commit that stamped it and the contracts as they were there. */
export interface ReleaseInfo {
  /** The version stamped in contracts/CHANGELOG.md, e.g. `1.0.0`. */
  version: string;
  /** The date of the stamp, YYYY-MM-DD; empty when unknown (a directory given by hand). */
  date: string;
  /** The commit that made the release (full hash); empty for a release built from a directory. */
  commit: string;
  /** The deprecation registry of the contracts as released. */
  registry(): DeprecationRegistry;
  /** A file's text at the release, by path inside `contracts/` (e.g. `evidence-key.pem`); undefined if absent. */
  file(pathInContracts: string): string | undefined;
}

/** The releases up to and including the baseline, oldest first; `base` is the last of them. */
export interface ReleaseHistory {
  releases: ReleaseInfo[];
  base: ReleaseInfo;
}

/** A directory holding openapi.yaml, schema.graphql and inventory/ taken as one release. */
export function releaseFromDirectory(
  dir: string,
  { version = 'base', date = '', commit = '' }: { version?: string; date?: string; commit?: string } = {},
): ReleaseInfo {
  let registry: DeprecationRegistry | undefined;
  return {
    version,
    date,
    commit,
    registry: () => {
      registry ??= buildRegistry(dir).registry;
      return registry;
    },
    file: (pathInContracts) => {
      const full = path.join(dir, pathInContracts);
      return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
    },
  };
}

/** A history of the given releases, oldest first. */
export function historyOf(releases: ReleaseInfo[]): ReleaseHistory {
  const base = releases.at(-1);
  if (!base) throw new Error('a release history needs at least one release');
  return { releases, base };
}
