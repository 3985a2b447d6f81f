/**
 * The deprecation report (spec §9.2 rules 2, 7, 8): every registry item with its state, recent uses and
 * brownout windows, the callers of one item with their contact and client versions, and the notices sent
 * to them (admins only); and the registry as published, with each item's state and announced windows.
 * States: `watched` (measured, no date), `announced` (sunset ahead), `sunset-passed` (and no use since),
 * `overdue` (sunset passed, still used: return to the announcement step).
 */

import type { BrownoutService, BrownoutWindow } from './brownouts.js';
import type { Caller } from './caller.js';
import { requireAdmin } from './caller.js';
import type { DeprecationRegistry, RegistryItem } from './deprecation-registry.js';
import { DomainError } from './errors.js';
import type { CallerUsage, Notice, UsageKind, UsagePort } from './usage-port.js';

/** Where an item stands in its retirement. */
export type ItemState = 'watched' | 'announced' | 'sunset-passed' | 'overdue';

/** Uses in the last 1, 7 and 30 days (today counts as day 1). */
export interface RecentUses {
  last1Days: number;
  last7Days: number;
  last30Days: number;
}

/** One line of the item list. */
export interface ItemReport {
  item: RegistryItem;
  state: ItemState;
  uses: RecentUses;
  replacementUses: RecentUses;
  /** Requests refused during brownout windows. */
  brownoutHits: RecentUses;
  /** Windows announced or running. */
  brownouts: BrownoutWindow[];
}

/** Counts of one caller, one client or one day. */
interface Counts {
  uses: number;
  replacementUses: number;
  brownoutHits: number;
}

/** One caller of an item: a key (0 = anonymous) with its owner, clients and days. */
export interface CallerReport extends Counts {
  apiKeyId: number;
  ownerName: string | null;
  ownerEmail: string | null;
  clients: Array<Counts & { client: string; firstSeen: Date; lastSeen: Date }>;
  firstSeen: Date;
  lastSeen: Date;
  /** Whether the caller was first seen refused in a brownout window (never measured using it before). */
  surfacedByBrownout: boolean;
  daily: Array<Counts & { day: string }>;
  notices: Array<{ channel: string; notifiedAt: Date; note: string | null }>;
}

/** Input of a notice record. */
export interface NoticeInput {
  apiKeyIds: number[];
  channel: string;
  note?: string;
  notifiedAt?: Date;
}

/** One item of the published registry: the contract's facts, its state and its announced windows. */
export interface PublishedItem extends RegistryItem {
  state: ItemState;
  brownouts: Array<{ id: number; startsAt: string; endsAt: string }>;
}

const DAY_MS = 86_400_000;
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
export const daysBefore = (date: Date, days: number) => dayOf(new Date(date.getTime() - days * DAY_MS));
/** How long the published registry's states are reused before the usage totals are read again. */
const PUBLISHED_STATES_MS = 30_000;

/**
 * The state of an item on a day. `usedSinceSunset`: whether it was used (or tried during a brownout) on
 * or after its sunset day, in the last 30 days.
 */
export function stateOf(item: RegistryItem, today: string, usedSinceSunset = false): ItemState {
  if (!item.sunset) return 'watched';
  if (today < item.sunset) return 'announced';
  return usedSinceSunset ? 'overdue' : 'sunset-passed';
}

const addCounts = (into: Counts, kind: UsageKind, count: number) => {
  if (kind === 'use') into.uses += count;
  else if (kind === 'replacement') into.replacementUses += count;
  else into.brownoutHits += count;
};
const noCounts = (): Counts => ({ uses: 0, replacementUses: 0, brownoutHits: 0 });

/** Folds the usage rows of one item into one report per caller, most recent use first. */
function callerReports(rows: CallerUsage[], notices: Notice[]): CallerReport[] {
  const byKey = new Map<number, CallerReport & { firstUse?: Date; firstBrownout?: Date }>();
  for (const row of rows) {
    let report = byKey.get(row.apiKeyId);
    if (!report) {
      report = {
        apiKeyId: row.apiKeyId,
        ownerName: row.ownerName,
        ownerEmail: row.ownerEmail,
        clients: [],
        ...noCounts(),
        firstSeen: row.firstSeen,
        lastSeen: row.lastSeen,
        surfacedByBrownout: false,
        daily: [],
        notices: notices
          .filter((notice) => notice.apiKeyId === row.apiKeyId)
          .map(({ channel, notifiedAt, note }) => ({ channel, notifiedAt, note })),
      };
      byKey.set(row.apiKeyId, report);
    }
    addCounts(report, row.kind, row.count);
    if (row.firstSeen < report.firstSeen) report.firstSeen = row.firstSeen;
    if (row.lastSeen > report.lastSeen) report.lastSeen = row.lastSeen;
    const first = row.kind === 'brownout' ? 'firstBrownout' : 'firstUse';
    if (!report[first] || row.firstSeen < (report[first] as Date)) report[first] = row.firstSeen;
    let client = report.clients.find((entry) => entry.client === row.client);
    if (!client) {
      client = { client: row.client, ...noCounts(), firstSeen: row.firstSeen, lastSeen: row.lastSeen };
      report.clients.push(client);
    }
    addCounts(client, row.kind, row.count);
    if (row.firstSeen < client.firstSeen) client.firstSeen = row.firstSeen;
    if (row.lastSeen > client.lastSeen) client.lastSeen = row.lastSeen;
    let daily = report.daily.find((entry) => entry.day === row.day);
    if (!daily) {
      daily = { day: row.day, ...noCounts() };
      report.daily.push(daily);
    }
    addCounts(daily, row.kind, row.count);
  }
  const callers = [...byKey.values()].map(({ firstUse, firstBrownout, ...report }) => {
    report.surfacedByBrownout = firstBrownout !== undefined && (firstUse === undefined || firstBrownout < firstUse);
    report.clients.sort((a, b) => a.client.localeCompare(b.client));
    report.daily.sort((a, b) => a.day.localeCompare(b.day));
    return report;
  });
  return callers.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime() || a.apiKeyId - b.apiKeyId);
}

/** The report service over the registry, the usage store and the brownout windows. */
export function createDeprecationService({
  registry,
  usage,
  brownouts,
  now = () => new Date(),
}: {
  registry: DeprecationRegistry;
  usage: UsagePort;
  brownouts?: Pick<BrownoutService, 'announced'>;
  now?: () => Date;
}) {
  const items = new Map(registry.items.map((item) => [item.id, item]));
  const itemOf = (id: string): RegistryItem => {
    const item = items.get(id);
    if (!item) throw new DomainError('NOT_FOUND', `No deprecated or watched item has the id ${id}.`);
    return item;
  };
  const announced = (id: string) => brownouts?.announced(id) ?? [];

  /** Every item's state and its daily totals in the last 30 days. */
  const states = async (at: Date) => {
    const today = dayOf(at);
    const totals = await usage.totals(daysBefore(at, 29));
    const stateOfItem = (item: RegistryItem) =>
      stateOf(
        item,
        today,
        totals.some(
          (row) => row.item === item.id && row.kind !== 'replacement' && item.sunset !== null && row.day >= item.sunset,
        ),
      );
    return { totals, stateOfItem };
  };
  let publishedStates: { at: number; states: Map<string, ItemState> } | undefined;

  return {
    registry,
    itemOf,

    /** Every item with its state, its uses in the last 1, 7 and 30 days, and its brownout windows. */
    async list(caller: Caller): Promise<ItemReport[]> {
      requireAdmin(caller, 'read the deprecation report');
      const at = now();
      const { totals, stateOfItem } = await states(at);
      const recent = (id: string, kind: UsageKind): RecentUses => {
        const rows = totals.filter((row) => row.item === id && row.kind === kind);
        const since = (days: number) =>
          rows.filter((row) => row.day >= daysBefore(at, days - 1)).reduce((sum, row) => sum + row.count, 0);
        return { last1Days: since(1), last7Days: since(7), last30Days: since(30) };
      };
      return registry.items.map((item) => ({
        item,
        state: stateOfItem(item),
        uses: recent(item.id, 'use'),
        replacementUses: recent(item.id, 'replacement'),
        brownoutHits: recent(item.id, 'brownout'),
        brownouts: announced(item.id),
      }));
    },

    /** The callers of one item in the last `days` days (default 30), most recent first. */
    async callers(
      caller: Caller,
      id: string,
      days = 30,
    ): Promise<{ item: RegistryItem; state: ItemState; callers: CallerReport[] }> {
      requireAdmin(caller, 'read the deprecation report');
      const item = itemOf(id);
      const at = now();
      const [rows, notices, { stateOfItem }] = await Promise.all([
        usage.callers(id, daysBefore(at, days - 1)),
        usage.notices(id),
        states(at),
      ]);
      return { item, state: stateOfItem(item), callers: callerReports(rows, notices) };
    },

    /**
     * The registry as published at /contracts/deprecations: each item with its state and the brownout
     * windows announced for it. Public, so the states are read from the usage totals at most every 30 s.
     */
    async published(): Promise<{ items: PublishedItem[] }> {
      const at = now();
      if (
        !publishedStates ||
        at.getTime() - publishedStates.at > PUBLISHED_STATES_MS ||
        at.getTime() < publishedStates.at
      ) {
        const { stateOfItem } = await states(at);
        publishedStates = {
          at: at.getTime(),
          states: new Map(registry.items.map((item) => [item.id, stateOfItem(item)])),
        };
      }
      const known = publishedStates.states;
      return {
        items: registry.items.map((item) => ({
          ...item,
          state: known.get(item.id) ?? stateOf(item, dayOf(at)),
          brownouts: announced(item.id).map((window) => ({
            id: window.id,
            startsAt: window.startsAt.toISOString(),
            endsAt: window.endsAt.toISOString(),
          })),
        })),
      };
    },

    /** Records that the owners of these keys were told about the item (when, by which channel). */
    async notify(caller: Caller, id: string, input: NoticeInput) {
      requireAdmin(caller, 'record deprecation notices');
      itemOf(id);
      const notifiedAt = input.notifiedAt ?? now();
      const apiKeyIds = [...new Set(input.apiKeyIds)];
      const notices = apiKeyIds.map((apiKeyId) => ({
        item: id,
        apiKeyId,
        channel: input.channel,
        note: input.note ?? null,
        notifiedAt,
      }));
      const { unknownKeys } = await usage.addNotices(notices, caller.userId);
      if (unknownKeys.length > 0) {
        throw new DomainError('VALIDATION_FAILED', `No API key has the id ${unknownKeys.join(', ')}.`, [
          { in: 'body', name: '/apiKeyIds', message: `names unknown keys: ${unknownKeys.join(', ')}` },
        ]);
      }
      return notices;
    },
  };
}

/** The report service. */
export type DeprecationService = ReturnType<typeof createDeprecationService>;
