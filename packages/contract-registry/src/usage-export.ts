/**
 * The signed usage export of one deprecated or watched item: the evidence a removal needs, written by the
 * service that measured it and read by the contract gate (a retirement's evidence). Its days, their
 * completeness, the callers still using the item and its brownout windows, signed with the service's
 * evidence key (./evidence-signature.ts).
 */
import type { Signed } from './evidence-signature.js';
import type { CallerSummary } from './records.js';
import type { ItemState } from './registry.js';

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
