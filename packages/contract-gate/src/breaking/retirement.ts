/**
 * Removals need evidence (spec §9.2 rules 2(d) and 8). A removal passes the gate only through an
 * entry of contracts/retirements.yaml whose evidence holds, checked in the order an API owner meets it:
 *   (a) the item was deprecated with a sunset date in the released (base) contracts;
 *   (b) the sunset date has passed;
 *   (c) notice: the first release that carried the deprecation (its date read from the release history,
 *       never typed) came at least `minNoticeDays` (default 90) before the sunset; a retirement may lower
 *       that only with a `noticeReason`. Without a dated release history the notice cannot be proven;
 *   (d) the usage export (`npm run usage:export`) is signed by the evidence key committed at the baseline
 *       release (contracts/evidence-key.pem there, so a change cannot swap the key and sign its own
 *       export): an unsigned, altered or foreign export is refused;
 *   (e) it is about this item, ends no more than 7 days ago, and shows zero use, brownout hits included, on
 *       each of the last `quietDays` days (default 30), each measured completely;
 *   (f) when the quiet days are missing because it was used after its sunset, the item is overdue: the
 *       refusal says so and names the callers still using it;
 *   (g) a brownout: at least one window of at least `minBrownoutMinutes` (default 15; lower only with a
 *       `brownoutReason`) was held after the announcement (the date of that first release): it started on
 *       or after that day, ended by the time of the export and was not cancelled before its end.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import {
  type ExportBrownout,
  type ExportDay,
  heldBy,
  incompleteReasons,
  quietDaysOf,
  signatureProblem,
  USAGE_EXPORT_FORMAT,
  type UsageExport,
} from '@order-api/contract-registry';
import { parse as parseYaml } from 'yaml';
import type { Change } from './model.js';
import type { ReleaseHistory } from './release-history.js';

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
  /** Days of notice between the first release carrying the deprecation and the sunset (default 90). */
  minNoticeDays?: number;
  /** Why the notice may be shorter than 90 days (required to lower `minNoticeDays`). */
  noticeReason?: string;
  /** The shortest brownout window that counts, in minutes (default 15). */
  minBrownoutMinutes?: number;
  /** Why a shorter brownout window is enough (required to lower `minBrownoutMinutes`). */
  brownoutReason?: string;
  note?: string;
}

/** What the gate found: the dates, the brownout and the export that allowed the removal, or why it did not. */
export type RetirementVerdict =
  | {
      allowed: true;
      deprecated: string;
      /** The date of the first release that carried the deprecation, and its version. */
      announced: string;
      announcedIn: string;
      sunset: string;
      noticeDays: number;
      quietDays: number;
      measuredTo: string;
      /** The held window that satisfied the brownout rule (the longest). */
      brownout: { startsAt: string; endsAt: string; minutes: number; hits: number };
    }
  | { allowed: false; reason: string };

/** What a retirement is checked against. */
export interface RetirementContext {
  root: string;
  /** The registry of the baseline release. */
  baseRegistry: DeprecationRegistry;
  today: string;
  /** The releases up to the baseline, oldest first: when the deprecation was announced, and the evidence key. */
  history: ReleaseHistory;
}

export const DEFAULT_QUIET_DAYS = 30;
export const DEFAULT_MIN_NOTICE_DAYS = 90;
export const DEFAULT_MIN_BROWNOUT_MINUTES = 15;
/** Where the public evidence key is committed, inside contracts/. */
export const EVIDENCE_KEY_FILE = 'evidence-key.pem';

const PROTOCOL = { openapi: 'rest', graphql: 'graphql', proto: 'grpc' } as const;
const DAY_MS = 86_400_000;
const MAX_EXPORT_AGE_DAYS = 7;
const FORMAT_1 = 'order-api.usage-export/1';
const FORMAT_2 = 'order-api.usage-export/2';
const COUNTS = ['instances', 'flushedInstances', 'droppedUses', 'uses', 'replacementUses', 'brownoutHits'] as const;

const optionalNumber = (value: unknown) => (value === undefined ? undefined : Number(value));
const positiveInteger = (value: number | undefined) => value === undefined || (Number.isInteger(value) && value >= 1);

/** Reads the committed retirements file; a malformed entry is a load failure, never silently ignored. */
export function loadRetirements(file: string): Retirement[] {
  const parsed = parseYaml(readFileSync(file, 'utf8')) as { retirements?: unknown[] } | null;
  return (parsed?.retirements ?? []).map((entry, index) => {
    const raw = (entry ?? {}) as Record<string, unknown>;
    const minNoticeDays = optionalNumber(raw.minNoticeDays);
    const minBrownoutMinutes = optionalNumber(raw.minBrownoutMinutes);
    const retirement: Retirement = {
      contract: raw.contract as Retirement['contract'],
      item: String(raw.item ?? ''),
      registryItem: String(raw.registryItem ?? ''),
      evidence: String(raw.evidence ?? ''),
      quietDays: raw.quietDays === undefined ? DEFAULT_QUIET_DAYS : Number(raw.quietDays),
      ...(minNoticeDays !== undefined ? { minNoticeDays } : {}),
      ...(raw.noticeReason ? { noticeReason: String(raw.noticeReason) } : {}),
      ...(minBrownoutMinutes !== undefined ? { minBrownoutMinutes } : {}),
      ...(raw.brownoutReason ? { brownoutReason: String(raw.brownoutReason) } : {}),
      ...(raw.note ? { note: String(raw.note) } : {}),
    };
    const valid =
      retirement.contract in PROTOCOL &&
      retirement.item !== '' &&
      retirement.registryItem.startsWith(`${PROTOCOL[retirement.contract]}.`) &&
      retirement.evidence !== '' &&
      positiveInteger(retirement.quietDays) &&
      positiveInteger(minNoticeDays) &&
      positiveInteger(minBrownoutMinutes);
    if (!valid)
      throw new Error(
        `${file}: retirement #${index + 1} needs contract, item, registryItem (an id of that contract's protocol), ` +
          'evidence (a usage export) and, if given, quietDays, minNoticeDays and minBrownoutMinutes >= 1',
      );
    return retirement;
  });
}

/** Reads the export and checks its signature against the baseline's evidence key, then its consistency. */
function readExport(root: string, file: string, history: ReleaseHistory): UsageExport {
  const full = path.resolve(root, file);
  if (!existsSync(full)) throw new Error(`the evidence ${file} does not exist (write it with npm run usage:export)`);
  let parsed: UsageExport;
  try {
    parsed = JSON.parse(readFileSync(full, 'utf8')) as UsageExport;
  } catch {
    throw new Error(`the evidence ${file} is not JSON (write it with npm run usage:export)`);
  }
  if ((parsed.format as string) === FORMAT_1)
    throw new Error(
      `the evidence ${file} is a usage export of format 1, which took a day for measured when any one instance ` +
        `flushed, even if another never did or uses were dropped: export it again (${USAGE_EXPORT_FORMAT})`,
    );
  if ((parsed.format as string) === FORMAT_2)
    throw new Error(
      `the evidence ${file} is a usage export of format 2, unsigned and without brownout windows: ` +
        `export it again (${USAGE_EXPORT_FORMAT})`,
    );
  if (parsed.format !== USAGE_EXPORT_FORMAT || !Array.isArray(parsed.days) || !Array.isArray(parsed.callers))
    throw new Error(`the evidence ${file} is not a usage export (${USAGE_EXPORT_FORMAT})`);
  const key = history.base.file(EVIDENCE_KEY_FILE);
  if (key === undefined)
    throw new Error(
      `the baseline release ${history.base.version} commits no contracts/${EVIDENCE_KEY_FILE}: no evidence can be ` +
        "verified until a release carries the deployment's evidence key (GET /contracts/evidence-key)",
    );
  const problem = signatureProblem(parsed as unknown as Record<string, unknown>, key);
  if (problem)
    throw new Error(
      `the evidence ${file} is refused: ${problem} (the evidence key of release ${history.base.version}, ` +
        `contracts/${EVIDENCE_KEY_FILE}); export it again from the deployment's database`,
    );
  if (!Array.isArray(parsed.brownouts)) throw new Error(`the evidence ${file} carries no brownout windows`);
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

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/**
 * The first release that carried the item as deprecated: its date and version, or why the notice cannot be
 * proven. The date is the release's (its changelog stamp), never the `deprecated` date typed in the contract.
 */
function announcement(history: ReleaseHistory, id: string): { date: string; version: string } | { reason: string } {
  const first = history.releases.find((release) =>
    release.registry().items.some((candidate) => candidate.id === id && candidate.status === 'deprecated'),
  );
  if (!first) return { reason: `no release in the history carried ${id} as deprecated` };
  if (!first.date)
    return {
      reason:
        `the notice cannot be proven without release history: the release ${first.version} that first carried ` +
        `${id} as deprecated has no known date (a baseline given as a directory); run the gate on the git history`,
    };
  return { date: first.date, version: first.version };
}

/** Why a window does not satisfy the brownout rule, or undefined when it does. */
function windowProblem(window: ExportBrownout, evidence: UsageExport, announced: string, minutes: number) {
  const span = `${window.startsAt}/${window.endsAt}`;
  if (window.startsAt < `${announced}T00:00:00.000Z`) return `${span} started before the announcement ${announced}`;
  if (window.minutes < minutes || Date.parse(window.endsAt) - Date.parse(window.startsAt) < minutes * 60_000)
    return `${span} lasted ${window.minutes} minutes`;
  if (window.cancelledAt !== null && window.cancelledAt < window.endsAt)
    return `${span} was cancelled at ${window.cancelledAt}`;
  if (!heldBy(window, evidence.asOf)) return `${span} had not ended by the export (${evidence.asOf})`;
  return undefined;
}

/** Checks one retirement's evidence against the released registry, the release history and today's date. */
export function checkRetirement(
  retirement: Retirement,
  { root, baseRegistry, today, history }: RetirementContext,
): RetirementVerdict {
  const refuse = (reason: string): RetirementVerdict => ({ allowed: false, reason });
  const item = baseRegistry.items.find((candidate) => candidate.id === retirement.registryItem);
  if (item?.status !== 'deprecated' || !item.sunset || !item.deprecated)
    return refuse(
      `${retirement.registryItem} was not deprecated with a sunset date in the released contracts: announce it first`,
    );
  const sunset = item.sunset;
  if (today < sunset) return refuse(`its sunset ${sunset} has not come yet`);

  // Notice, from the release history.
  const minNotice = retirement.minNoticeDays ?? DEFAULT_MIN_NOTICE_DAYS;
  if (minNotice < DEFAULT_MIN_NOTICE_DAYS && !retirement.noticeReason?.trim())
    return refuse(
      `minNoticeDays ${minNotice} is below ${DEFAULT_MIN_NOTICE_DAYS}: a shorter notice needs a noticeReason`,
    );
  const announced = announcement(history, item.id);
  if ('reason' in announced) return refuse(announced.reason);
  const noticeDays = daysBetween(announced.date, sunset);
  if (noticeDays < minNotice)
    return refuse(
      `announced too late: the deprecation was first released in ${announced.version} on ${announced.date}, ` +
        `${noticeDays} days before its sunset ${sunset}; ${minNotice} days of notice are needed`,
    );

  // The evidence: signed by the baseline's key, about this item, recent.
  let evidence: UsageExport;
  try {
    evidence = readExport(root, retirement.evidence, history);
  } catch (error) {
    return refuse((error as Error).message);
  }
  if (evidence.item !== item.id)
    return refuse(`the evidence ${retirement.evidence} is about ${evidence.item}, not ${item.id}`);
  const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - MAX_EXPORT_AGE_DAYS * DAY_MS).toISOString().slice(0, 10);
  if (evidence.to < oldest)
    return refuse(`the evidence ends on ${evidence.to}, more than ${MAX_EXPORT_AGE_DAYS} days ago: export it again`);

  // Quiet at the end.
  const quiet = quietDaysOf(evidence.days);
  const usedSinceSunset = evidence.days.some((day) => day.day >= sunset && day.uses + day.brownoutHits > 0);
  if (quiet < retirement.quietDays && usedSinceSunset)
    return refuse(
      `overdue: still used after its sunset ${sunset}, by ${callersText(evidence)}. Return to announcing: tell these callers, set a new sunset, brown out again`,
    );
  if (quiet < retirement.quietDays) {
    const last = evidence.days[evidence.days.length - 1 - quiet];
    const why = last ? notQuiet(last) : `the evidence holds ${evidence.days.length} days`;
    return refuse(
      `only ${quiet} quiet days at the end of the evidence, ${retirement.quietDays} needed (${why})${evidence.callers.length > 0 ? `; callers: ${callersText(evidence)}` : ''}`,
    );
  }

  // A held brownout after the announcement.
  const minMinutes = retirement.minBrownoutMinutes ?? DEFAULT_MIN_BROWNOUT_MINUTES;
  if (minMinutes < DEFAULT_MIN_BROWNOUT_MINUTES && !retirement.brownoutReason?.trim())
    return refuse(
      `minBrownoutMinutes ${minMinutes} is below ${DEFAULT_MIN_BROWNOUT_MINUTES}: a shorter window needs a brownoutReason`,
    );
  const problems = evidence.brownouts.map((window) => windowProblem(window, evidence, announced.date, minMinutes));
  const held = evidence.brownouts
    .filter((_, index) => problems[index] === undefined)
    .sort((a, b) => b.minutes - a.minutes)[0];
  if (!held) {
    const seen = problems.filter((problem) => problem !== undefined);
    return refuse(
      `no brownout held: the evidence shows no window of at least ${minMinutes} minutes held after the ` +
        `announcement ${announced.date} (${evidence.from} to ${evidence.to}` +
        `${seen.length > 0 ? `: ${seen.join('; ')}` : ', no window at all'}); schedule one (POST /v1/brownouts), ` +
        'let it run, and export again with enough days to include it',
    );
  }
  return {
    allowed: true,
    deprecated: item.deprecated,
    announced: announced.date,
    announcedIn: announced.version,
    sunset,
    noticeDays,
    quietDays: quiet,
    measuredTo: evidence.to,
    brownout: { startsAt: held.startsAt, endsAt: held.endsAt, minutes: held.minutes, hits: held.hits },
  };
}
