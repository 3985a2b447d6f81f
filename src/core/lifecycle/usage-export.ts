/**
 * The usage export (spec §9.2 rule 2(d): remove only after use stays at zero long enough): one item's
 * measured use over a period, day by day, with how completely each day was measured, and the callers still
 * using it. `npm run usage:export` writes it from the live database; it is committed next to the retirement
 * in contracts/retirements.yaml, and the release gate reads the evidence from it.
 *
 * A day is measured when every instance that served it (registered when it started, or flushed for it)
 * flushed its usage for that day at least once, and no instance dropped a use of the item because its
 * buffer was full. It is quiet when it is measured and nothing used the item, brownout hits included. What a
 * measured day can still miss: an instance killed without a SIGTERM loses the uses it buffered since its
 * last flush, at most USAGE_FLUSH_MS (5 s by default) of that instance's traffic; more only while its
 * writes were failing, each failure logged (`usage flush failed`).
 *
 * It also carries the brownout windows of the item in its period (spec §9.2 rule 8), with whether each was
 * held and its hits, and it is signed by the server's evidence key (src/core/lifecycle/evidence/evidence-signature.ts): the
 * gate takes no removal on an unsigned or altered export.
 */
import type { KeyObject } from 'node:crypto';
import type { BrownoutStore, BrownoutWindow, DayCoverage, UsagePort } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { dayOf, daysBefore } from '../shared/index.js';
import type { DeprecationService, ItemState } from './deprecations.js';
import { type Signed, signDocument } from './evidence/index.js';
import { type CallerSummary, stillUsing } from './usage/index.js';

/**
 * The format name and version the gate accepts. Version 1 counted a day measured if any instance flushed;
 * version 2 was unsigned and carried no brownout windows.
 */
export const USAGE_EXPORT_FORMAT = 'order-api.usage-export/3';

/** How the hits of a window are counted, written into every export for its reader. */
export const WINDOW_HITS =
  'Brownout hits are stored per UTC day, not per window: the hits of a window are those of the days it ' +
  'touches, so two windows of one item on the same day each count all of that day.';

/** What the export says a measured day means, written into every export for its reader. */
export const MEASURED_DAY =
  'A day is measured when every instance that served it flushed its usage for that day at least once and no ' +
  'instance dropped a use of the item (buffer full); quiet when measured with no use and no brownout hit. An ' +
  'instance killed without a SIGTERM loses the uses buffered since its last flush: at most USAGE_FLUSH_MS ' +
  "(5 s by default) of that instance's traffic, more only while its writes failed (logged).";

/**
 * Why a day is not measured: no instance served it, an instance that served it never flushed for it, or
 * uses of the item were dropped.
 */
export type IncompleteReason = 'no-instance' | 'instance-not-flushed' | 'uses-dropped';

/** One day of the export. */
export interface ExportDay {
  day: string;
  /** Instances that served that day (0: nothing was measured). */
  instances: number;
  /** Of those, the ones that flushed usage for that day at least once. */
  flushedInstances: number;
  /** Uses of the item dropped that day because an instance's buffer was full. */
  droppedUses: number;
  /** Every instance that served the day flushed for it, and no use of the item was dropped. */
  measured: boolean;
  /** Why the day is not measured; empty when it is. */
  incomplete: IncompleteReason[];
  uses: number;
  replacementUses: number;
  brownoutHits: number;
}

/** A brownout window of the item, as the export carries it. */
export interface ExportBrownout {
  id: number;
  startsAt: string;
  endsAt: string;
  /** Its length in whole minutes. */
  minutes: number;
  /** When it was cancelled (by an admin, or by the server when the deprecation was undone); null if never. */
  cancelledAt: string | null;
  /** Ended by `asOf` and not cancelled before its end: the window was held. */
  held: boolean;
  /** Brownout hits on the UTC days the window touches (see `windowHits`). */
  hits: number;
}

/** The export of one item, before it is signed. */
export interface UsageExportContent {
  format: typeof USAGE_EXPORT_FORMAT;
  item: string;
  name: string;
  deprecated: string | null;
  sunset: string | null;
  state: ItemState;
  generatedAt: string;
  /** The first and last day covered (UTC, inclusive; the last is the day of the export). */
  from: string;
  to: string;
  /** The moment the export reads up to: the end of `to`, or the time of the export when `to` is today. */
  asOf: string;
  /** What a measured and a quiet day mean, and what a measured day can still miss. */
  measuredDay: string;
  /** Days measured completely. */
  daysMeasured: number;
  /** Consecutive quiet days ending at `to` (measured, and no use nor brownout hit). */
  quietDays: number;
  totals: { uses: number; replacementUses: number; brownoutHits: number };
  days: ExportDay[];
  /** Callers with any use or brownout hit in the period, most recent first. */
  callers: CallerSummary[];
  /** The item's brownout windows that overlap the period and started by `asOf`, cancelled ones included. */
  brownouts: ExportBrownout[];
  /** How the hits of a window are counted. */
  windowHits: string;
}

/** The export as written: signed by the server's evidence key. */
export type UsageExport = UsageExportContent & Signed;

/** Whether a window counts as held by `asOf`: ended by then and not cancelled before its end. */
export function heldBy(window: Pick<ExportBrownout, 'endsAt' | 'cancelledAt'>, asOf: string): boolean {
  const end = Date.parse(window.endsAt);
  return end <= Date.parse(asOf) && (window.cancelledAt === null || Date.parse(window.cancelledAt) >= end);
}

/** Why a day with these counts is not measured (none: it is). */
export function incompleteReasons({
  instances,
  flushedInstances,
  droppedUses,
}: Pick<ExportDay, 'instances' | 'flushedInstances' | 'droppedUses'>): IncompleteReason[] {
  const reasons: IncompleteReason[] = [];
  if (instances === 0) reasons.push('no-instance');
  else if (flushedInstances < instances) reasons.push('instance-not-flushed');
  if (droppedUses > 0) reasons.push('uses-dropped');
  return reasons;
}

/** The trailing run of quiet days of an export's days (oldest first). */
export function quietDaysOf(days: ExportDay[]): number {
  let quiet = 0;
  for (let index = days.length - 1; index >= 0; index--) {
    const day = days[index] as ExportDay;
    if (!day.measured || day.uses > 0 || day.brownoutHits > 0) break;
    quiet++;
  }
  return quiet;
}

/** What an export reads: the report, the usage and the brownout windows, and the clock. */
export interface ExportSources {
  report: DeprecationService;
  usage: UsagePort;
  brownouts: BrownoutStore;
  now?: () => Date;
}

/**
 * Builds the export of `item` over the `days` days up to the day of `now()` (today by default), that day
 * included; `generatedAt` is always the real time of the export. Admins only, as the report it reads.
 * Unsigned: `signExport` signs it.
 */
export async function exportUsage(
  { report, usage, brownouts, now = () => new Date() }: ExportSources,
  caller: Caller,
  item: string,
  days: number,
): Promise<UsageExportContent> {
  const at = now();
  const from = daysBefore(at, days - 1);
  const [{ item: entry, state, callers }, coverage, windows] = await Promise.all([
    report.callers(caller, item, days),
    usage.coverage(item, from),
    brownouts.list({ item, endedAfter: new Date(`${from}T00:00:00.000Z`) }),
  ]);
  const byDay = new Map(coverage.map((row) => [row.day, row]));
  const list: ExportDay[] = [];
  for (let offset = days - 1; offset >= 0; offset--) {
    const day = daysBefore(at, offset);
    const counts = { uses: 0, replacementUses: 0, brownoutHits: 0 };
    for (const caller of callers) {
      const daily = caller.daily.find((entry) => entry.day === day);
      if (!daily) continue;
      counts.uses += daily.uses;
      counts.replacementUses += daily.replacementUses;
      counts.brownoutHits += daily.brownoutHits;
    }
    list.push({ day, ...completeness(byDay.get(day)), ...counts });
  }
  const sum = (key: 'uses' | 'replacementUses' | 'brownoutHits') => list.reduce((total, day) => total + day[key], 0);
  return {
    format: USAGE_EXPORT_FORMAT,
    item: entry.id,
    name: entry.name,
    deprecated: entry.deprecated,
    sunset: entry.sunset,
    state,
    generatedAt: new Date().toISOString(),
    from,
    to: dayOf(at),
    asOf: at.toISOString(),
    measuredDay: MEASURED_DAY,
    daysMeasured: list.filter((day) => day.measured).length,
    quietDays: quietDaysOf(list),
    totals: { uses: sum('uses'), replacementUses: sum('replacementUses'), brownoutHits: sum('brownoutHits') },
    days: list,
    callers: stillUsing(callers),
    brownouts: windows.filter((window) => window.startsAt <= at).map((window) => exportedWindow(window, list, at)),
    windowHits: WINDOW_HITS,
  };
}

/** Signs an export with the server's evidence key. */
export function signExport(content: UsageExportContent, privateKey: KeyObject): UsageExport {
  return signDocument(content, privateKey);
}

/** A window as exported: its hits are those of the days it touches (hits are stored per day). */
function exportedWindow(window: BrownoutWindow, days: ExportDay[], at: Date): ExportBrownout {
  const first = dayOf(window.startsAt);
  const last = dayOf(new Date(window.endsAt.getTime() - 1));
  const hits = days
    .filter((day) => day.day >= first && day.day <= last)
    .reduce((sum, day) => sum + day.brownoutHits, 0);
  const exported = {
    id: window.id,
    startsAt: window.startsAt.toISOString(),
    endsAt: window.endsAt.toISOString(),
    minutes: Math.floor((window.endsAt.getTime() - window.startsAt.getTime()) / 60_000),
    cancelledAt: window.cancelledAt?.toISOString() ?? null,
  };
  return { ...exported, held: heldBy(exported, at.toISOString()), hits };
}

/** How completely a day was measured, from the instances' heartbeats and the dropped uses. */
function completeness(coverage: DayCoverage | undefined) {
  const counts = {
    instances: coverage?.served ?? 0,
    flushedInstances: coverage?.flushed ?? 0,
    droppedUses: coverage?.dropped ?? 0,
  };
  const incomplete = incompleteReasons(counts);
  return { ...counts, measured: incomplete.length === 0, incomplete };
}
