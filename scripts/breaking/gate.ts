import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { diffGraphql } from './graphql-diff.js';
import { diffOpenApi } from './openapi-diff.js';
import { diffProto } from './proto-diff.js';
import type { Change } from './report.js';

/** A deliberate, recorded retirement (docs/decisions.md §7). */
export interface Retirement {
  contract: Change['contract'];
  item: string;
  deprecated: string;
  sunset: string;
  zeroUsageSince: string;
  note?: string;
}

/** The verdict on one change. */
export interface Finding extends Change {
  retiredBy?: Retirement;
}

/** The gate's answer: every change, and those that block the release. */
export interface GateResult {
  findings: Finding[];
  blocking: Finding[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dateText = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value ?? ''));

/** Reads the committed retirements file; a malformed entry is a load failure, never silently ignored. */
export function loadRetirements(file: string): Retirement[] {
  const parsed = parseYaml(readFileSync(file, 'utf8')) as { retirements?: unknown[] } | null;
  return (parsed?.retirements ?? []).map((entry, index) => {
    const raw = entry as Record<string, unknown>;
    const retirement = {
      contract: raw.contract as Retirement['contract'],
      item: String(raw.item ?? ''),
      deprecated: dateText(raw.deprecated),
      sunset: dateText(raw.sunset),
      zeroUsageSince: dateText(raw.zeroUsageSince),
      ...(raw.note ? { note: String(raw.note) } : {}),
    };
    const valid =
      ['openapi', 'graphql', 'proto'].includes(retirement.contract) &&
      retirement.item !== '' &&
      [retirement.deprecated, retirement.sunset, retirement.zeroUsageSince].every((date) => DATE.test(date)) &&
      retirement.deprecated <= retirement.sunset;
    if (!valid)
      throw new Error(
        `${file}: retirement #${index + 1} needs contract, item, deprecated <= sunset and zeroUsageSince dates`,
      );
    return retirement;
  });
}

/** Where each side's contracts are: directories holding openapi.yaml, schema.graphql and inventory/. */
export interface GateInput {
  root: string;
  baseDir: string;
  headDir: string;
  retirements: Retirement[];
  /** YYYY-MM-DD; a retirement counts only after its sunset date. */
  today: string;
}

/** Compares the three contracts and decides which changes block a release. */
export async function runGate({ root, baseDir, headDir, retirements, today }: GateInput): Promise<GateResult> {
  const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');
  const changes: Change[] = [
    ...diffOpenApi(parseYaml(read(baseDir, 'openapi.yaml')), parseYaml(read(headDir, 'openapi.yaml'))),
    ...(await diffGraphql(read(baseDir, 'schema.graphql'), read(headDir, 'schema.graphql'))),
    ...diffProto(root, baseDir, headDir),
  ];
  const findings = changes.map((change): Finding => {
    if (!change.breaking || !change.removal) return change;
    // Removal is breaking; only a recorded retirement past its sunset, with usage measured at zero, lets it through.
    const retiredBy = retirements.find(
      (entry) =>
        entry.contract === change.contract &&
        entry.item === change.item &&
        entry.sunset < today &&
        entry.zeroUsageSince <= today,
    );
    return retiredBy ? { ...change, retiredBy } : change;
  });
  return { findings, blocking: findings.filter((finding) => finding.breaking && !finding.retiredBy) };
}
