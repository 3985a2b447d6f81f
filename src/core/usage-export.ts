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
 */
import type { Caller } from './caller.js';
import { type CallerSummary, stillUsing } from './deprecation-callers.js';
import { type DeprecationService, dayOf, daysBefore, type ItemState } from './deprecations.js';
import type { DayCoverage, UsagePort } from './ports/usage.js';

/** The format name and version the gate accepts (version 1 counted a day measured if any instance flushed). */
export const USAGE_EXPORT_FORMAT = 'order-api.usage-export/2';

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

/** The export of one item. */
export interface UsageExport {
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

/**
 * Builds the export of `item` over the `days` days up to the day of `now()` (today by default), that day
 * included; `generatedAt` is always the real time of the export. Admins only, as the report it reads.
 */
export async function exportUsage(
  { report, usage, now = () => new Date() }: { report: DeprecationService; usage: UsagePort; now?: () => Date },
  caller: Caller,
  item: string,
  days: number,
): Promise<UsageExport> {
  const at = now();
  const from = daysBefore(at, days - 1);
  const [{ item: entry, state, callers }, coverage] = await Promise.all([
    report.callers(caller, item, days),
    usage.coverage(item, from),
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
    measuredDay: MEASURED_DAY,
    daysMeasured: list.filter((day) => day.measured).length,
    quietDays: quietDaysOf(list),
    totals: { uses: sum('uses'), replacementUses: sum('replacementUses'), brownoutHits: sum('brownoutHits') },
    days: list,
    callers: stillUsing(callers),
  };
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
