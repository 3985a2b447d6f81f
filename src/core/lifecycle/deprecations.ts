/**
 * The deprecation report (spec §9.2 rules 2, 7, 8): every registry item with its state, recent uses and
 * brownout windows, the callers of one item with their contact and client versions, and the notices sent
 * to them (admins only); and the registry as published, with each item's state and announced windows.
 * States: `watched` (measured, no date), `announced` (sunset ahead), `sunset-passed` (and no use since),
 * `overdue` (sunset passed, still used: return to the announcement step).
 */

import type { DeprecationRegistry, ItemState, RegistryItem } from '@order-api/contract-registry';
import type { UsageKind, UsagePort, UsageTotal } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { DomainError, dayOf, daysBefore, requireAdmin } from '../shared/index.js';
import type { BrownoutService, BrownoutWindow } from './brownouts/index.js';
import { deprecationNotice, type NoticeInput } from './notices/index.js';
import { type CallerReport, callerReports } from './usage/index.js';

export type { ItemState } from '@order-api/contract-registry';
export type { RecordedNotice } from '../ports/index.js';
export type { NoticeInput } from './notices/index.js';
export type { CallerReport } from './usage/index.js';

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

/** One item of the published registry: the contract's facts, its state and its announced windows. */
export interface PublishedItem extends RegistryItem {
  state: ItemState;
  brownouts: Array<{ id: number; startsAt: string; endsAt: string }>;
}

/** The longest period usage is read over, in UTC days: a year and its leap day (reports, exports, evidence). */
export const EVIDENCE_WINDOW = 366;

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

/** One item's callers, as the report shows them. */
export interface ItemCallers {
  item: RegistryItem;
  state: ItemState;
  callers: CallerReport[];
}

/** What the report service reads. */
export interface DeprecationDeps {
  registry: DeprecationRegistry;
  usage: UsagePort;
  brownouts?: Pick<BrownoutService, 'announced'>;
  now?: () => Date;
  /** Whether each notified owner is also mailed (SMTP_URL): the mail is queued with the event. */
  mailNotices?: boolean;
}

/** The report service over the registry, the usage store and the brownout windows. */
export function createDeprecationService({
  registry,
  usage,
  brownouts,
  now = () => new Date(),
  mailNotices = false,
}: DeprecationDeps) {
  const itemOf = itemLookup(registry);
  const announced = (id: string) => brownouts?.announced(id) ?? [];

  const states = (at: Date) => readStates(usage, at);
  const cachedStates = createStateCache(registry, states);

  return {
    registry,
    itemOf,

    /** Every item with its state, its uses in the last 1, 7 and 30 days, and its brownout windows. */
    async list(caller: Caller): Promise<ItemReport[]> {
      requireAdmin(caller, 'read the deprecation report');
      const at = now();
      const { totals, stateOfItem } = await states(at);
      const recent = (id: string, kind: UsageKind) => recentUses(totals, at, id, kind);
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
    async callers(caller: Caller, id: string, days = 30): Promise<ItemCallers> {
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
      const known = await cachedStates(at);
      return {
        items: registry.items.map((item) => ({
          ...item,
          state: known.get(item.id) ?? stateOf(item, dayOf(at)),
          brownouts: announced(item.id).map(({ id, startsAt, endsAt }) => ({
            id,
            startsAt: startsAt.toISOString(),
            endsAt: endsAt.toISOString(),
          })),
        })),
      };
    },

    /**
     * Sends the item's notice to the owners of the named keys, or of every key that used the item in the 30
     * days up to now (none: an empty list): one `deprecation.announced` event per owner, with its e-mail
     * queued (SMTP_URL); one notice recorded per key with its event and its deliveries (pending).
     */
    async notify(caller: Caller, id: string, input: NoticeInput) {
      requireAdmin(caller, 'record deprecation notices');
      const request = deprecationNotice(itemOf(id), input, { at: now(), recordedBy: caller.userId, mailNotices });
      const sent = await usage.addNotices(request);
      if (sent.unknownKeys.length > 0) throw unknownKeysError(sent.unknownKeys);
      return sent.recorded;
    },
  };
}

/** Finds a registry item by id, or NOT_FOUND. */
function itemLookup(registry: DeprecationRegistry): (id: string) => RegistryItem {
  const items = new Map(registry.items.map((item) => [item.id, item]));
  return (id) => {
    const item = items.get(id);
    if (!item) throw new DomainError('NOT_FOUND', `No deprecated or watched item has the id ${id}.`);
    return item;
  };
}

function unknownKeysError(unknownKeys: number[]): DomainError {
  return new DomainError('VALIDATION_FAILED', `No API key has the id ${unknownKeys.join(', ')}.`, [
    { in: 'body', name: '/apiKeyIds', message: `names unknown keys: ${unknownKeys.join(', ')}` },
  ]);
}

/** Every item's state and the daily totals of the last 30 days. */
export async function readStates(usage: Pick<UsagePort, 'totals'>, at: Date) {
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
}

/** Uses of one kind in the last 1, 7 and 30 days. */
function recentUses(totals: UsageTotal[], at: Date, id: string, kind: UsageKind): RecentUses {
  const rows = totals.filter((row) => row.item === id && row.kind === kind);
  const since = (days: number) =>
    rows.filter((row) => row.day >= daysBefore(at, days - 1)).reduce((sum, row) => sum + row.count, 0);
  return { last1Days: since(1), last7Days: since(7), last30Days: since(30) };
}

/** The items' states, read again at most every PUBLISHED_STATES_MS (or when the clock moves back). */
function createStateCache(registry: DeprecationRegistry, states: (at: Date) => ReturnType<typeof readStates>) {
  let cached: { at: number; states: Map<string, ItemState> } | undefined;
  return async (at: Date): Promise<Map<string, ItemState>> => {
    if (!cached || at.getTime() - cached.at > PUBLISHED_STATES_MS || at.getTime() < cached.at) {
      const { stateOfItem } = await states(at);
      cached = { at: at.getTime(), states: new Map(registry.items.map((item) => [item.id, stateOfItem(item)])) };
    }
    return cached.states;
  };
}

/** The report service. */
export type DeprecationService = ReturnType<typeof createDeprecationService>;
