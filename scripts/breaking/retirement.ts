/**
 * Removals need evidence (spec §9.2 rules 2(d) and 8). A removal passes the gate only through an entry of
 * contracts/retirements.yaml whose evidence holds:
 *   (a) the item was deprecated with a sunset date in the released (base) contracts;
 *   (b) the sunset date has passed;
 *   (c) the committed usage export (`npm run usage:export`) shows zero use, brownout hits included, on each
 *       of the last `quietDays` days (default 30), each measured completely (every instance that served it
 *       flushed for it, no use of the item dropped), up to a day no older than 7 days;
 *   (d) when the quiet days are missing because it was used after its sunset, the item is overdue: the
 *       refusal says so and names the callers still using it.
 * A hand-typed date proves nothing; the export is produced from the live database and reviewed with the
 * removal.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DeprecationRegistry } from '../../src/core/deprecation-registry.js';
import {
  type ExportDay,
  incompleteReasons,
  quietDaysOf,
  USAGE_EXPORT_FORMAT,
  type UsageExport,
} from '../../src/core/usage-export.js';
import type { ReleaseHistory } from './release-history.js';
import type { Change } from './report.js';

/** A recorded retirement: the removed item as the gate names it, its registry id, and the evidence. */
export interface Retirement {
  contract: Change['contract'];
  /** The name the gate reports for the removal, e.g. `Order.note`. */
  item: string;
  /** The deprecation registry id, e.g. `graphql.Order.note`. */
  registryItem: string;
  /** The usage export, relative to the project root, e.g. `contracts/evidence/graphql.Order.note.json`. */
  evidence: string;
  /** Quiet days the export must end with (default 30). */
  quietDays: number;
  note?: string;
}

/** What the gate found: the dates and the export that allowed the removal, or why it did not. */
export type RetirementVerdict =
  | { allowed: true; deprecated: string; sunset: string; quietDays: number; measuredTo: string }
  | { allowed: false; reason: string };

const PROTOCOL = { openapi: 'rest', graphql: 'graphql', proto: 'grpc' } as const;
const DAY_MS = 86_400_000;
const MAX_EXPORT_AGE_DAYS = 7;
const FORMAT_1 = 'order-api.usage-export/1';
const COUNTS = ['instances', 'flushedInstances', 'droppedUses', 'uses', 'replacementUses', 'brownoutHits'] as const;

/** Reads the committed retirements file; a malformed entry is a load failure, never silently ignored. */
export function loadRetirements(file: string): Retirement[] {
  const parsed = parseYaml(readFileSync(file, 'utf8')) as { retirements?: unknown[] } | null;
  return (parsed?.retirements ?? []).map((entry, index) => {
    const raw = (entry ?? {}) as Record<string, unknown>;
    const retirement: Retirement = {
      contract: raw.contract as Retirement['contract'],
      item: String(raw.item ?? ''),
      registryItem: String(raw.registryItem ?? ''),
      evidence: String(raw.evidence ?? ''),
      quietDays: raw.quietDays === undefined ? 30 : Number(raw.quietDays),
      ...(raw.note ? { note: String(raw.note) } : {}),
    };
    const valid =
      retirement.contract in PROTOCOL &&
      retirement.item !== '' &&
      retirement.registryItem.startsWith(`${PROTOCOL[retirement.contract]}.`) &&
      retirement.evidence !== '' &&
      Number.isInteger(retirement.quietDays) &&
      retirement.quietDays >= 1;
    if (!valid)
      throw new Error(
        `${file}: retirement #${index + 1} needs contract, item, registryItem (an id of that contract's protocol), ` +
          'evidence (a usage export) and, if given, quietDays >= 1',
      );
    return retirement;
  });
}

function readExport(root: string, file: string): UsageExport {
  const full = path.resolve(root, file);
  if (!existsSync(full)) throw new Error(`the evidence ${file} does not exist (write it with npm run usage:export)`);
  const parsed = JSON.parse(readFileSync(full, 'utf8')) as UsageExport;
  if ((parsed.format as string) === FORMAT_1)
    throw new Error(
      `the evidence ${file} is a usage export of format 1, which took a day for measured when any one instance ` +
        `flushed, even if another never did or uses were dropped: export it again (${USAGE_EXPORT_FORMAT})`,
    );
  if (parsed.format !== USAGE_EXPORT_FORMAT || !Array.isArray(parsed.days) || !Array.isArray(parsed.callers))
    throw new Error(`the evidence ${file} is not a usage export (${USAGE_EXPORT_FORMAT})`);
  parsed.days.forEach((day, index) => {
    const expected = new Date(Date.parse(`${parsed.to}T00:00:00Z`) - (parsed.days.length - 1 - index) * DAY_MS);
    if (day.day !== expected.toISOString().slice(0, 10))
      throw new Error(`the evidence ${file} skips or repeats days (at ${day.day}); export it again`);
    // `measured` must follow from the counts beside it, so an edited flag cannot make a day quiet.
    const counted = COUNTS.every((key) => Number.isInteger(day[key]) && day[key] >= 0);
    const reasons = counted ? incompleteReasons(day) : [];
    if (!counted || day.measured !== (reasons.length === 0) || String(day.incomplete) !== String(reasons))
      throw new Error(`the evidence ${file} contradicts itself on ${day.day} (counts, measured); export it again`);
  });
  return parsed;
}

/** Why a day is not quiet, for the refusal. */
function notQuiet(day: ExportDay): string {
  if (day.uses + day.brownoutHits > 0) return `it was used on ${day.day}`;
  if (day.instances === 0 && day.droppedUses === 0) return `nothing was measured on ${day.day}`;
  const why = day.incomplete.map((reason) => {
    if (reason === 'uses-dropped') return `${day.droppedUses} uses were dropped (buffer full)`;
    if (reason === 'no-instance') return 'no instance noted serving it';
    return `${day.instances - day.flushedInstances} of ${day.instances} instances that served it never flushed`;
  });
  return `${day.day} was not measured completely: ${why.join('; ')}`;
}

const callersText = (evidence: UsageExport) =>
  evidence.callers
    .map(
      (caller) =>
        `key ${caller.apiKeyId}${caller.owner ? ` (${caller.owner}${caller.email ? `, ${caller.email}` : ''})` : ''} ` +
        `[${caller.clients.join(', ')}] ${caller.uses} uses, ${caller.brownoutHits} brownout hits, last ${caller.lastSeen}`,
    )
    .join('; ');

/** Checks one retirement's evidence against the released registry and today's date. */
export function checkRetirement(
  retirement: Retirement,
  {
    root,
    baseRegistry,
    today,
  }: { root: string; baseRegistry: DeprecationRegistry; today: string; history?: ReleaseHistory },
): RetirementVerdict {
  const item = baseRegistry.items.find((candidate) => candidate.id === retirement.registryItem);
  if (item?.status !== 'deprecated' || !item.sunset || !item.deprecated)
    return {
      allowed: false,
      reason: `${retirement.registryItem} was not deprecated with a sunset date in the released contracts: announce it first`,
    };
  const sunset = item.sunset;
  if (today < sunset) return { allowed: false, reason: `its sunset ${sunset} has not come yet` };
  let evidence: UsageExport;
  try {
    evidence = readExport(root, retirement.evidence);
  } catch (error) {
    return { allowed: false, reason: (error as Error).message };
  }
  if (evidence.item !== item.id)
    return { allowed: false, reason: `the evidence ${retirement.evidence} is about ${evidence.item}, not ${item.id}` };
  const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - MAX_EXPORT_AGE_DAYS * DAY_MS).toISOString().slice(0, 10);
  if (evidence.to < oldest)
    return {
      allowed: false,
      reason: `the evidence ends on ${evidence.to}, more than ${MAX_EXPORT_AGE_DAYS} days ago: export it again`,
    };
  const quiet = quietDaysOf(evidence.days);
  const usedSinceSunset = evidence.days.some((day) => day.day >= sunset && day.uses + day.brownoutHits > 0);
  if (quiet < retirement.quietDays && usedSinceSunset)
    return {
      allowed: false,
      reason: `overdue: still used after its sunset ${sunset}, by ${callersText(evidence)}. Return to announcing: tell these callers, set a new sunset, brown out again`,
    };
  if (quiet < retirement.quietDays) {
    const last = evidence.days[evidence.days.length - 1 - quiet];
    const why = last ? notQuiet(last) : `the evidence holds ${evidence.days.length} days`;
    return {
      allowed: false,
      reason: `only ${quiet} quiet days at the end of the evidence, ${retirement.quietDays} needed (${why})${evidence.callers.length > 0 ? `; callers: ${callersText(evidence)}` : ''}`,
    };
  }
  return { allowed: true, deprecated: item.deprecated, sunset, quietDays: quiet, measuredTo: evidence.to };
}
