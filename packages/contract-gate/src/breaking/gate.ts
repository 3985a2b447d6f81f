import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { parse, print } from 'graphql';
import { parse as parseYaml } from 'yaml';
import type { TwinLookup } from '../project.js';
import { buildRegistry } from '../registry/build-registry.js';
import { graphqlRules, openapiRules, protoRulesOfModule, type RuleBook, type Rules } from '../rules/contract-rules.js';
import { acknowledged, checkChangelog, parseChangelog, type Versions } from './changelog.js';
import { diffGraphql } from './graphql-diff.js';
import { statedByTwin } from './input-rules.js';
import type { Change, Contracts } from './model.js';
import { checkNamed, meaningChanges } from './named-items.js';
import { diffOpenApi } from './openapi-diff.js';
import { diffProto } from './proto-diff.js';
import { registryIdsOf } from './registry-ids.js';
import { historyOf, type ReleaseHistory, releaseFromDirectory } from './release-history.js';

export type { Contracts } from './model.js';

import { checkRetirement, type Retirement, type RetirementVerdict } from './retirement.js';

export { loadRetirements, type Retirement } from './retirement.js';

/** The verdict on one change. */
export interface Finding extends Change {
  /** The retirement that let the removal through, with what its evidence showed. */
  retiredBy?: Retirement & { verdict: Extract<RetirementVerdict, { allowed: true }> };
  /** Why the retirement recorded for this removal does not let it through. */
  refused?: string;
  /** A dangerous change named by the changelog. */
  acknowledged?: boolean;
}

/** The gate's answer: every change, and those that block the release. */
export interface GateResult {
  findings: Finding[];
  blocking: Finding[];
}

/** Where each side's contracts are: directories holding openapi.yaml, schema.graphql and inventory/. */
export interface GateInput {
  root: string;
  baseDir: string;
  headDir: string;
  retirements: Retirement[];
  /** YYYY-MM-DD; a retirement counts only from its sunset date on. */
  today: string;
  /** The deprecation registry of the base contracts; built from `baseDir` when a retirement needs it. */
  baseRegistry?: DeprecationRegistry;
  /** The changelog text; by default `CHANGELOG.md` of the head directory (none there = an empty changelog). */
  changelog?: string;
  /**
   * The releases up to the baseline, oldest first (./git-history.ts; retirements read the
   * announcement date and the evidence key from it); by default (`--base <dir>`, tests) one release of
   * `baseDir` with an unknown date.
   */
  history?: ReleaseHistory;
  /**
   * The head is the release commit of this version: the changelog entries under its `## [version]` heading
   * are the change's entries, instead of those under `## [Unreleased]`.
   */
  releaseVersion?: string;
  /** The proto findings, when they were computed already (a corpus runs buf once for many pairs). */
  protoChanges?: Change[];
  /** Either side already loaded, instead of reading its directory (a corpus builds its edits in memory). */
  base?: Contracts;
  head?: Contracts;
  /**
   * The project's twins (./../project.ts): a narrowed rule that a twin of the member stated in the base
   * release states what the server already enforced. None: no member has a twin.
   */
  twins?: TwinLookup;
}

const EMPTY_CHANGELOG = '# Changelog\n\n## [Unreleased]\n';

function readChangelog(headDir: string): string {
  const file = path.join(headDir, 'CHANGELOG.md');
  return existsSync(file) ? readFileSync(file, 'utf8') : EMPTY_CHANGELOG;
}

/** Every `.proto` file under a directory's `inventory/`, by relative path. */
function protoTexts(dir: string): Map<string, string> {
  const texts = new Map<string, string>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(name);
      else if (name.endsWith('.proto')) texts.set(name, readFileSync(path.join(dir, name), 'utf8'));
    }
  };
  if (existsSync(path.join(dir, 'inventory'))) walk('inventory');
  return texts;
}

/** Reads the contracts of a directory holding openapi.yaml, schema.graphql and inventory/. */
export function readContracts(dir: string): Contracts {
  return {
    openapi: parseYaml(readFileSync(path.join(dir, 'openapi.yaml'), 'utf8')),
    graphql: readFileSync(path.join(dir, 'schema.graphql'), 'utf8'),
    proto: protoTexts(dir),
  };
}

/** The contracts whose content differs (formatting and SDL comments aside). */
function differing(base: Contracts, head: Contracts): Change['contract'][] {
  const collapse = (files: Map<string, string>) =>
    new Map([...files].map(([name, text]) => [name, text.replace(/\s+/g, ' ').trim()]));
  const out: Change['contract'][] = [];
  if (!isDeepStrictEqual(base.openapi, head.openapi)) out.push('openapi');
  if (print(parse(base.graphql)) !== print(parse(head.graphql))) out.push('graphql');
  if (!isDeepStrictEqual(collapse(base.proto), collapse(head.proto))) out.push('proto');
  return out;
}

function versionsOf(side: Contracts): Versions {
  const paths = Object.keys((side.openapi.paths as Record<string, unknown> | undefined) ?? {});
  return {
    openapi: new Set(paths.flatMap((p) => /^\/(v\d+)\//.exec(p)?.[1] ?? [])),
    proto: new Set([...side.proto.keys()].flatMap((file) => /^inventory\/(v\d+)\//.exec(file)?.[1] ?? [])),
  };
}

/**
 * The input rules of one side, each contract read only when asked for (the proto needs `buf build`, with
 * protovalidate's definitions from the project's contracts/buf/).
 */
function lazyRuleBook(side: Contracts, root: string): RuleBook {
  const cache: Partial<RuleBook> = {};
  const protoOf = (): Map<string, Rules> => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'gate-rules-'));
    try {
      for (const [file, text] of side.proto) {
        mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
        writeFileSync(path.join(scratch, file), text);
      }
      const rules = path.join(root, 'contracts/buf');
      if (existsSync(rules)) cpSync(rules, path.join(scratch, 'buf'), { recursive: true });
      return side.proto.size > 0 ? protoRulesOfModule(scratch, 'inventory') : new Map();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  };
  return {
    get openapi() {
      cache.openapi ??= openapiRules(side.openapi);
      return cache.openapi;
    },
    get graphql() {
      cache.graphql ??= graphqlRules(side.graphql);
      return cache.graphql;
    },
    get proto() {
      cache.proto ??= protoOf();
      return cache.proto;
    },
  };
}

/** Compares the three contracts, checks the changelog, and decides which changes block a release. */
export async function runGate(input: GateInput): Promise<GateResult> {
  const { root, baseDir, headDir, retirements, today } = input;
  const base = input.base ?? readContracts(baseDir);
  const head = input.head ?? readContracts(headDir);
  const changelog = parseChangelog(input.changelog ?? readChangelog(headDir), { version: input.releaseVersion });
  const history = input.history ?? historyOf([releaseFromDirectory(baseDir)]);
  const differs = differing(base, head);
  // buf runs only when the proto differs (whitespace aside): identical files cannot break.
  const protoChanges = input.protoChanges ?? (differs.includes('proto') ? diffProto(root, baseDir, headDir) : []);
  const changes: Change[] = [
    ...diffOpenApi(base.openapi, head.openapi),
    ...(await diffGraphql(base.graphql, head.graphql)),
    ...protoChanges,
    ...checkChangelog({ changelog, differs, base: versionsOf(base), head: versionsOf(head) }),
    ...checkNamed(changelog, meaningChanges(base, head)),
  ];
  let baseRegistry = input.baseRegistry;
  const registry = () => {
    baseRegistry ??= input.history ? history.base.registry() : buildRegistry(baseDir).registry;
    return baseRegistry;
  };
  const baseBook = lazyRuleBook(base, root);
  const findings = changes.map((rawChange): Finding => {
    // A narrowed input rule that a twin of its member already stated in the base is acknowledgeable as stated.
    const change =
      rawChange.rule === 'request-constraint-narrowed' && statedByTwin(rawChange, baseBook, input.twins)
        ? { ...rawChange, acknowledge: 'Stated' as const }
        : rawChange;
    if (change.acknowledge && acknowledged(changelog, change)) return { ...change, acknowledged: true };
    if (!change.breaking || !change.removal) return change;
    // Removal is breaking; only a recorded retirement whose evidence holds lets it through (./retirement.ts).
    const retirement = retirements.find((entry) => entry.contract === change.contract && entry.item === change.item);
    if (!retirement) return change;
    const named = registry().items.some((candidate) => candidate.id === retirement.registryItem);
    if (named && !registryIdsOf(change, registry(), base.openapi).includes(retirement.registryItem)) {
      return { ...change, refused: `${retirement.registryItem} is not the removed item ${change.item}` };
    }
    const verdict = checkRetirement(retirement, { root, baseRegistry: registry(), today, history });
    return verdict.allowed
      ? { ...change, retiredBy: { ...retirement, verdict } }
      : { ...change, refused: verdict.reason };
  });
  return {
    findings,
    blocking: findings.filter((finding) => finding.breaking && !finding.retiredBy && !finding.acknowledged),
  };
}
