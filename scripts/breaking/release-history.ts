/**
 * The release history the gate reads (issue 30): the releases made by `npm run contracts:release`, found
 * in git by their changelog stamp, oldest first. The gate's baseline is the last of them before the change
 * under test; retirements read from it when the deprecation was first released and which evidence key was
 * committed at the baseline.
 *
 * This file holds the shared shape; `readReleaseHistory` (git) is built beside it.
 */
import type { DeprecationRegistry } from '../../src/core/deprecation-registry.js';

/** One release: the commit that stamped it and the files as they were there. */
export interface ReleaseInfo {
  /** The version stamped in contracts/CHANGELOG.md, e.g. `1.0.0`. */
  version: string;
  /** The date of the stamp, YYYY-MM-DD. */
  date: string;
  /** The commit that made the release (full hash); empty for a history built in memory by a test. */
  commit: string;
  /** The deprecation registry of the contracts as released. */
  registry(): DeprecationRegistry;
  /** A file's text at the release, by path from the repository root (e.g. `contracts/evidence-key.pem`). */
  file(relativePath: string): string | undefined;
}

/** The releases up to and including the baseline, oldest first; `base` is the last of them. */
export interface ReleaseHistory {
  releases: ReleaseInfo[];
  base: ReleaseInfo;
}
