/**
 * The deprecation report (spec §9.2 rules 2, 7, 8): every registry item with its state and recent uses,
 * the callers of one item with their contact and client versions, and the notices sent to them. Admins
 * only. States: `watched` (measured, no date), `announced` (sunset ahead), `sunset-passed`.
 */

import type { Caller } from './caller.js';
import { requireAdmin } from './caller.js';
import type { DeprecationRegistry, RegistryItem } from './deprecation-registry.js';
import { DomainError } from './errors.js';
import type { UsageKind, UsagePort } from './usage-port.js';

/** Where an item stands in its retirement. */
export type ItemState = 'watched' | 'announced' | 'sunset-passed';

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
}

/** One caller of an item: a key (0 = anonymous) with its owner, clients and days. */
export interface CallerReport {
  apiKeyId: number;
  ownerName: string | null;
  ownerEmail: string | null;
  clients: Array<{ client: string; uses: number; replacementUses: number; firstSeen: Date; lastSeen: Date }>;
  uses: number;
  replacementUses: number;
  firstSeen: Date;
  lastSeen: Date;
  daily: Array<{ day: string; uses: number; replacementUses: number }>;
  notices: Array<{ channel: string; notifiedAt: Date; note: string | null }>;
}

/** Input of a notice record. */
export interface NoticeInput {
  apiKeyIds: number[];
  channel: string;
  note?: string;
  notifiedAt?: Date;
}

const DAY_MS = 86_400_000;
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const daysBefore = (date: Date, days: number) => dayOf(new Date(date.getTime() - days * DAY_MS));

/** The state of an item on a day. */
export function stateOf(item: RegistryItem, today: string): ItemState {
  if (!item.sunset) return 'watched';
  return today >= item.sunset ? 'sunset-passed' : 'announced';
}

/** The report service over the registry and the usage store. */
export function createDeprecationService({
  registry,
  usage,
  now = () => new Date(),
}: {
  registry: DeprecationRegistry;
  usage: UsagePort;
  now?: () => Date;
}) {
  const items = new Map(registry.items.map((item) => [item.id, item]));
  const itemOf = (id: string): RegistryItem => {
    const item = items.get(id);
    if (!item) throw new DomainError('NOT_FOUND', `No deprecated or watched item has the id ${id}.`);
    return item;
  };

  return {
    registry,
    itemOf,

    /** Every item with its state and its uses in the last 1, 7 and 30 days. */
    async list(caller: Caller): Promise<ItemReport[]> {
      requireAdmin(caller, 'read the deprecation report');
      const at = now();
      const today = dayOf(at);
      const totals = await usage.totals(daysBefore(at, 29));
      const recent = (id: string, kind: UsageKind): RecentUses => {
        const rows = totals.filter((row) => row.item === id && row.kind === kind);
        const since = (days: number) =>
          rows.filter((row) => row.day >= daysBefore(at, days - 1)).reduce((sum, row) => sum + row.count, 0);
        return { last1Days: since(1), last7Days: since(7), last30Days: since(30) };
      };
      return registry.items.map((item) => ({
        item,
        state: stateOf(item, today),
        uses: recent(item.id, 'use'),
        replacementUses: recent(item.id, 'replacement'),
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
      const [rows, notices] = await Promise.all([usage.callers(id, daysBefore(at, days - 1)), usage.notices(id)]);
      const byKey = new Map<number, CallerReport>();
      for (const row of rows) {
        let report = byKey.get(row.apiKeyId);
        if (!report) {
          report = {
            apiKeyId: row.apiKeyId,
            ownerName: row.ownerName,
            ownerEmail: row.ownerEmail,
            clients: [],
            uses: 0,
            replacementUses: 0,
            firstSeen: row.firstSeen,
            lastSeen: row.lastSeen,
            daily: [],
            notices: notices
              .filter((notice) => notice.apiKeyId === row.apiKeyId)
              .map(({ channel, notifiedAt, note }) => ({ channel, notifiedAt, note })),
          };
          byKey.set(row.apiKeyId, report);
        }
        const isUse = row.kind === 'use';
        report.uses += isUse ? row.count : 0;
        report.replacementUses += isUse ? 0 : row.count;
        if (row.firstSeen < report.firstSeen) report.firstSeen = row.firstSeen;
        if (row.lastSeen > report.lastSeen) report.lastSeen = row.lastSeen;
        let client = report.clients.find((entry) => entry.client === row.client);
        if (!client) {
          client = {
            client: row.client,
            uses: 0,
            replacementUses: 0,
            firstSeen: row.firstSeen,
            lastSeen: row.lastSeen,
          };
          report.clients.push(client);
        }
        client.uses += isUse ? row.count : 0;
        client.replacementUses += isUse ? 0 : row.count;
        if (row.firstSeen < client.firstSeen) client.firstSeen = row.firstSeen;
        if (row.lastSeen > client.lastSeen) client.lastSeen = row.lastSeen;
        let daily = report.daily.find((entry) => entry.day === row.day);
        if (!daily) {
          daily = { day: row.day, uses: 0, replacementUses: 0 };
          report.daily.push(daily);
        }
        daily.uses += isUse ? row.count : 0;
        daily.replacementUses += isUse ? 0 : row.count;
      }
      const callers = [...byKey.values()];
      for (const report of callers) {
        report.clients.sort((a, b) => a.client.localeCompare(b.client));
        report.daily.sort((a, b) => a.day.localeCompare(b.day));
      }
      callers.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime() || a.apiKeyId - b.apiKeyId);
      return { item, state: stateOf(item, dayOf(at)), callers };
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
