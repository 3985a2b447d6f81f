/** The callers report of one item: usage rows folded per caller, client and day. */
import type { CallerSummary } from '@order-api/contract-registry';
import type { CallerUsage, RecordedNotice, UsageKind } from '../../ports/index.js';

export type { CallerSummary } from '@order-api/contract-registry';

/** Counts of one caller, one client or one day. */
export interface Counts {
  uses: number;
  replacementUses: number;
  brownoutHits: number;
}

/** One caller of an item: a key (0 = anonymous) with its owner, clients and days. */
export interface CallerReport extends Counts {
  apiKeyId: number;
  ownerName: string | null;
  ownerEmail: string | null;
  /** The key's label, to tell which integration it is. */
  label: string | null;
  clients: Array<Counts & { client: string; firstSeen: Date; lastSeen: Date }>;
  firstSeen: Date;
  lastSeen: Date;
  /** Whether the caller was first seen refused in a brownout window (never measured using it before). */
  surfacedByBrownout: boolean;
  daily: Array<Counts & { day: string }>;
  notices: Array<Pick<RecordedNotice, 'channel' | 'notifiedAt' | 'note' | 'eventId' | 'deliveries'>>;
}

const addCounts = (into: Counts, kind: UsageKind, count: number) => {
  if (kind === 'use') into.uses += count;
  else if (kind === 'replacement') into.replacementUses += count;
  else into.brownoutHits += count;
};
const noCounts = (): Counts => ({ uses: 0, replacementUses: 0, brownoutHits: 0 });

/** Folds the usage rows of one item into one report per caller, most recent use first. */
export function callerReports(rows: CallerUsage[], notices: RecordedNotice[]): CallerReport[] {
  const byKey = new Map<number, CallerReport & { firstUse?: Date; firstBrownout?: Date }>();
  for (const row of rows) {
    let report = byKey.get(row.apiKeyId);
    if (!report) {
      report = {
        apiKeyId: row.apiKeyId,
        ownerName: row.ownerName,
        ownerEmail: row.ownerEmail,
        label: row.label,
        clients: [],
        ...noCounts(),
        firstSeen: row.firstSeen,
        lastSeen: row.lastSeen,
        surfacedByBrownout: false,
        daily: [],
        notices: notices
          .filter((notice) => notice.apiKeyId === row.apiKeyId)
          .map(({ channel, notifiedAt, note, eventId, deliveries }) => ({
            channel,
            notifiedAt,
            note,
            eventId,
            deliveries,
          })),
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

/** The callers that used the item or tried it in a brownout, in short, most recent first. */
export function stillUsing(callers: CallerReport[]): CallerSummary[] {
  return callers
    .filter((caller) => caller.uses + caller.brownoutHits > 0)
    .map((caller) => ({
      apiKeyId: caller.apiKeyId,
      owner: caller.ownerName,
      email: caller.ownerEmail,
      clients: caller.clients.map((client) => client.client),
      uses: caller.uses,
      brownoutHits: caller.brownoutHits,
      lastSeen: caller.lastSeen.toISOString(),
    }));
}
