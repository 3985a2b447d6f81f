/**
 * The mount table: the API versions the REST contract declares, read from its paths. A path under `/vN/`
 * declares version `vN`; the API has one integer for all its resources (spec §9.2 rules 4–5), and a later
 * version serves every operation of the earlier ones it does not change itself (rule 5). This is the one
 * place in src/ that knows how a version is written in a URL (test/architecture.test.ts keeps it so).
 */

const VERSION_PREFIX = /^\/(v([1-9][0-9]*))(?=\/|$)/;

/** The versions of a contract and how their URLs are written. */
export interface VersionMounts {
  /** The declared versions, oldest first (`['v1', 'v2']`). */
  versions: readonly string[];
  /** The newest version: the one new clients are sent to. */
  current: string;
  /** The URL prefix of a version (`v2` → `/v2`). */
  prefix(version: string): string;
  /** The declared version a path is under, if any. */
  versionOf(pathname: string): string | undefined;
  /** A versioned path moved under another version (`/v1/orders`, `v2` → `/v2/orders`). */
  rebase(pathname: string, version: string): string;
  /** Where a request to `version` looks for an operation: that version, then each older one, newest first. */
  lineage(version: string): readonly string[];
}

/** The version a path is written under (`/v2/orders` → `v2`), declared or not. */
export function pathVersion(pathname: string): string | undefined {
  return VERSION_PREFIX.exec(pathname)?.[1];
}

const numberOf = (version: string) => Number(version.slice(1));

/** Builds the mount table of a contract from the paths it declares (`paths` of an OpenAPI document). */
export function versionMounts(document: Record<string, unknown>): VersionMounts {
  const paths = Object.keys((document.paths ?? {}) as Record<string, unknown>);
  const declared = [...new Set(paths.map(pathVersion).filter((v): v is string => v !== undefined))];
  const versions = declared.sort((a, b) => numberOf(a) - numberOf(b));
  if (versions.length === 0) throw new Error('the REST contract declares no version: no path starts with /v<n>/');
  const prefix = (version: string) => `/${version}`;
  return {
    versions,
    current: versions.at(-1) as string,
    prefix,
    versionOf(pathname) {
      const version = pathVersion(pathname);
      return version && versions.includes(version) ? version : undefined;
    },
    rebase(pathname, version) {
      return pathname.replace(VERSION_PREFIX, prefix(version));
    },
    lineage(version) {
      return versions.filter((older) => numberOf(older) <= numberOf(version)).reverse();
    },
  };
}
