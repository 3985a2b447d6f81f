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
 * held and its hits, and it is signed by the server's evidence key (packages/contract-registry/src/evidence-signature.ts): the
 * gate takes no removal on an unsigned or altered export.
 */
import type { KeyObject } from 'node:crypto';
import {
  type ExportBrownout,
  type ExportDay,
  heldBy,
  incompleteReasons,
  MEASURED_DAY,
  quietDaysOf,
  signDocument,
  USAGE_EXPORT_FORMAT,
  type UsageExport,
  type UsageExportContent,
  WINDOW_HITS,
} from '@order-api/contract-registry';
import type { BrownoutStore, BrownoutWindow, DayCoverage, UsagePort } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { dayOf, daysBefore } from '../shared/index.js';
import type { DeprecationService } from './deprecations.js';
import { stillUsing } from './usage/index.js';

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
