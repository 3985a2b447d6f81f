/**
 * contracts/CHANGELOG.md, in Keep a Changelog form, read by the gate. A differ cannot see a change of
 * meaning (same name and type, other behaviour), so every difference from the released baseline must be
 * described under `## [Unreleased]`, one bullet per change:
 *
 *   - REST: `POST /v1/orders` documents `503 INVENTORY_UNAVAILABLE`.
 *   - GraphQL [docs]: clearer description of `Query.orders`.      (under Changed: wording only)
 *   - REST [v2]: `GET /v2/orders` pages by …                       (under Changed: a version cut)
 *
 * A bullet names its contracts first (`REST`, `GraphQL`, `gRPC`, comma-separated) and the items in
 * backticks. Under `### Changed` a bullet must say which kind of change it is: `[docs]` (descriptions,
 * examples — no behaviour changes) or `[vN]` (the change ships as version N: new `/vN/` paths in
 * OpenAPI, or a new `inventory/vN` package in proto, while the old version stays as it was). A change of
 * behaviour with neither is the breaking "change of meaning" and fails the gate.
 */
import type { Change } from './model.js';

export const CATEGORIES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'] as const;
const CONTRACTS: Record<string, Change['contract']> = { REST: 'openapi', GraphQL: 'graphql', gRPC: 'proto' };
export const CONTRACT_LABEL: Record<Change['contract'], string> = {
  openapi: 'REST',
  graphql: 'GraphQL',
  proto: 'gRPC',
};
const BULLET = /^- ((?:REST|GraphQL|gRPC)(?:, (?:REST|GraphQL|gRPC))*)(?: \[(docs|v\d+)\])?: (.+)$/s;
const RELEASE = /^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/;

/** One bullet of the Unreleased section. */
export interface Entry {
  category: string;
  contracts: Change['contract'][];
  /** `docs`, `v2`, … or undefined. */
  tag?: string;
  text: string;
  /** The items named in backticks. */
  items: string[];
  line: number;
}

/** The parsed changelog: the Unreleased entries, the released versions, and what is malformed. */
export interface Changelog {
  unreleased: Entry[];
  releases: Array<{ version: string; date: string }>;
  problems: string[];
}

/**
 * Parses the changelog text; problems are reported, never thrown, so the gate can name them. With `version`,
 * the entries read are those of that release (a release commit checked against the release before it).
 */
export function parseChangelog(text: string, { version }: { version?: string | undefined } = {}): Changelog {
  const result: Changelog = { unreleased: [], releases: [], problems: [] };
  const lines = text.split('\n');
  let section: 'none' | 'unreleased' | 'release' = 'none';
  let category = '';
  let sawUnreleased = false;
  let bullet: { text: string; line: number; category: string } | undefined;
  const flush = () => {
    if (!bullet) return;
    const match = BULLET.exec(bullet.text.replace(/\s*\n\s*/g, ' '));
    if (!match) {
      result.problems.push(
        `line ${bullet.line}: an Unreleased bullet must read "- REST: …", "- GraphQL [docs]: …" or "- gRPC [v2]: …"`,
      );
    } else {
      result.unreleased.push({
        category: bullet.category,
        contracts: (match[1] ?? '').split(', ').flatMap((label) => CONTRACTS[label] ?? []),
        ...(match[2] ? { tag: match[2] } : {}),
        text: match[3] ?? '',
        items: [...(match[3] ?? '').matchAll(/`([^`]+)`/g)].map((found) => found[1] ?? ''),
        line: bullet.line,
      });
    }
    bullet = undefined;
  };
  lines.forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line.startsWith('## ')) {
      flush();
      category = '';
      if (line === '## [Unreleased]') {
        if (sawUnreleased) result.problems.push(`line ${index + 1}: a second "## [Unreleased]" section`);
        sawUnreleased = true;
        section = version ? 'release' : 'unreleased';
        return;
      }
      const release = RELEASE.exec(line);
      if (!line.startsWith('## [') && section === 'none') return; // the preamble's own headings
      if (!release) result.problems.push(`line ${index + 1}: a release heading reads "## [1.2.0] - YYYY-MM-DD"`);
      else result.releases.push({ version: release[1] ?? '', date: release[2] ?? '' });
      section = version && release?.[1] === version ? 'unreleased' : 'release';
      return;
    }
    if (line.startsWith('### ') && section !== 'none') {
      flush();
      category = line.slice(4).trim();
      if (!(CATEGORIES as readonly string[]).includes(category))
        result.problems.push(`line ${index + 1}: "${category}" is not one of ${CATEGORIES.join(', ')}`);
      return;
    }
    if (section !== 'unreleased') return;
    if (line.startsWith('- ')) {
      flush();
      if (!category) result.problems.push(`line ${index + 1}: a bullet outside a "### Added/Changed/…" heading`);
      bullet = { text: line, line: index + 1, category };
    } else if (bullet && line.trim() !== '') bullet.text += `\n${line}`;
    else if (line.trim() === '') flush();
  });
  flush();
  if (!sawUnreleased) result.problems.push('no "## [Unreleased]" section');
  if (version && !result.releases.some((release) => release.version === version))
    result.problems.push(`no "## [${version}] - YYYY-MM-DD" section`);
  return result;
}

/** Versions each side publishes: `/vN/` path prefixes in OpenAPI, `inventory/vN` packages in proto. */
export interface Versions {
  openapi: Set<string>;
  proto: Set<string>;
}

/** What the gate checks the changelog against. */
export interface ChangelogInput {
  changelog: Changelog;
  /** Contracts whose content differs from the released baseline. */
  differs: Change['contract'][];
  base: Versions;
  head: Versions;
}

const finding = (item: string, rule: string, message: string, contract: Change['contract'] = 'openapi'): Change => ({
  contract,
  item,
  rule,
  message,
  breaking: true,
});

/** The changelog rules: an entry per changed contract, and no "Changed" bullet that changes behaviour unversioned. */
export function checkChangelog({ changelog, differs, base, head }: ChangelogInput): Change[] {
  const out: Change[] = changelog.problems.map((problem) =>
    finding('contracts/CHANGELOG.md', 'changelog-malformed', `contracts/CHANGELOG.md ${problem}`),
  );
  for (const contract of differs) {
    if (!changelog.unreleased.some((entry) => entry.contracts.includes(contract)))
      out.push(
        finding(
          'contracts/CHANGELOG.md',
          'changelog-entry-missing',
          `the ${CONTRACT_LABEL[contract]} contract differs from the released baseline, and "## [Unreleased]" in contracts/CHANGELOG.md has no "- ${CONTRACT_LABEL[contract]}: …" entry naming what changed and how (Added, Changed, Deprecated, Removed)`,
          contract,
        ),
      );
  }
  for (const entry of changelog.unreleased) {
    if (entry.category !== 'Changed' || entry.tag === 'docs') continue;
    for (const contract of entry.contracts) {
      const where = `contracts/CHANGELOG.md line ${entry.line}`;
      if (!entry.tag) {
        out.push(
          finding(
            `${CONTRACT_LABEL[contract]} "${entry.text.slice(0, 60)}"`,
            'changelog-changed-without-version',
            `${where}: a "Changed" entry that changes behaviour (same name, different meaning) is breaking; mark it [docs] if only descriptions or examples changed, or ship it as a new version and mark it [v2]`,
            contract,
          ),
        );
        continue;
      }
      const version = entry.tag;
      const cut = contract !== 'graphql' && head[contract].has(version) && !base[contract].has(version);
      if (!cut)
        out.push(
          finding(
            `${CONTRACT_LABEL[contract]} ${version}`,
            'changelog-version-not-cut',
            contract === 'graphql'
              ? `${where}: the GraphQL schema has no versions; add the new behaviour under a new field or argument name and deprecate the old one`
              : `${where}: says [${version}], but the contract does not newly publish ${version} (${contract === 'openapi' ? `paths under /${version}/` : `a package inventory.${version}`}) beside the released version`,
            contract,
          ),
        );
    }
  }
  return out;
}

/**
 * Whether a risky change is acknowledged: an Unreleased entry of its contract names its item in backticks —
 * under any heading for a GraphQL "dangerous" change, only under `### Security` for a narrowed request
 * bound (`acknowledge: 'Security'`; the same bullet under `### Changed` or `### Added` acknowledges nothing),
 * and under `### Security` or in a `[docs]` bullet for a rule a twin already stated (`'Stated'`).
 */
export function acknowledged(changelog: Changelog, change: Change): boolean {
  return changelog.unreleased.some(
    (entry) =>
      entry.contracts.includes(change.contract) &&
      entry.items.includes(change.item) &&
      (change.acknowledge === true ||
        entry.category === change.acknowledge ||
        (change.acknowledge === 'Stated' && (entry.category === 'Security' || entry.tag === 'docs'))),
  );
}

/** Stamps the Unreleased entries as a release: a new dated heading below an empty `## [Unreleased]`. */
export function stampRelease(text: string, version: string, date: string): string {
  const heading = /^## \[Unreleased\][ \t]*$/m;
  if (!heading.test(text)) throw new Error('contracts/CHANGELOG.md has no "## [Unreleased]" section');
  return text.replace(heading, () => `## [Unreleased]\n\n## [${version}] - ${date}`);
}
