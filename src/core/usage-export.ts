/**
 * The usage export (spec §9.2 rule 2(d): remove only after use stays at zero long enough): one item's
 * measured use over a period, day by day, with how many instances were recording each day, and the
 * callers still using it. `npm run usage:export` writes it from the live database; it is committed next to
 * the retirement in contracts/retirements.yaml, and the release gate reads the evidence from it. A day
 * counts as quiet only when at least one instance recorded that day and nothing used the item.
 */
import type { Caller } from './caller.js';
import { type CallerSummary, stillUsing } from './deprecation-callers.js';
import { type DeprecationService, dayOf, daysBefore, type ItemState } from './deprecations.js';
import type { UsagePort } from './ports/usage.js';

/** The format name and version the gate accepts. */
export const USAGE_EXPORT_FORMAT = 'order-api.usage-export/1';

/** One day of the export. */
export interface ExportDay {
  day: string;
  /** Instances that flushed usage that day (0: nothing was measured). */
  instances: number;
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
  /** Days with at least one instance recording. */
  daysCovered: number;
  /** Consecutive quiet days ending at `to` (measured, and no use nor brownout hit). */
  quietDays: number;
  totals: { uses: number; replacementUses: number; brownoutHits: number };
  days: ExportDay[];
  /** Callers with any use or brownout hit in the period, most recent first. */
  callers: CallerSummary[];
}

/** The trailing run of quiet days of an export's days (oldest first). */
export function quietDaysOf(days: ExportDay[]): number {
  let quiet = 0;
  for (let index = days.length - 1; index >= 0; index--) {
    const day = days[index] as ExportDay;
    if (day.instances === 0 || day.uses > 0 || day.brownoutHits > 0) break;
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
  const [{ item: entry, state, callers }, instances] = await Promise.all([
    report.callers(caller, item, days),
    usage.instances(from),
  ]);
  const byDay = new Map(instances.map((row) => [row.day, row.instances]));
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
    list.push({ day, instances: byDay.get(day) ?? 0, ...counts });
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
    daysCovered: list.filter((day) => day.instances > 0).length,
    quietDays: quietDaysOf(list),
    totals: { uses: sum('uses'), replacementUses: sum('replacementUses'), brownoutHits: sum('brownoutHits') },
    days: list,
    callers: stillUsing(callers),
  };
}
