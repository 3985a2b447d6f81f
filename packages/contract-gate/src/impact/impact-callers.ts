/**
 * The callers an impacted item names, from both records: deprecation usage (registry items) and the
 * request-shape record (every item). A caller is a key (with its label, owner, clients, uses and last
 * use), or, without a key, one client alone. Coverage says how much of the window the shape record
 * measured: its days with every serving instance flushed, and the shapes dropped.
 */
import type { CallerSummary, ShapeCoverage, ShapeProtocol, ShapeUse } from '@order-api/contract-registry';

/** A caller who would break. */
export interface ImpactCaller extends CallerSummary {
  /** The key's label (null: unnamed, or no key). */
  label: string | null;
  /** Where it was seen: deprecation usage (`usage`), the request-shape record (`shapes`). */
  seenIn: Array<'usage' | 'shapes'>;
  /** The product's own calls (the Order API's inventory client), not an outside caller. */
  own?: true;
}

/** How completely the shape record measured an item's protocol over the window. */
export interface ImpactCoverage {
  /** Days of the window. */
  days: number;
  /** Days on which every instance that served flushed its shapes. */
  measuredDays: number;
  /** Shapes of the item's protocol dropped in the window (a cap was reached). */
  dropped: number;
}

/** The rows of one item as callers: one per key, one per client for calls without a key. */
export function callersOfRows(rows: ShapeUse[]): ImpactCaller[] {
  const byCaller = new Map<string, ImpactCaller>();
  for (const row of rows) {
    const id = row.apiKeyId > 0 ? `key ${row.apiKeyId}` : `client ${row.client}`;
    const lastSeen = row.lastSeen.toISOString();
    const caller = byCaller.get(id) ?? {
      apiKeyId: row.apiKeyId,
      label: row.label,
      owner: row.ownerName,
      email: row.ownerEmail,
      clients: [],
      uses: 0,
      brownoutHits: 0,
      lastSeen,
      seenIn: ['shapes'],
      ...(row.client.startsWith('(own) ') ? { own: true as const } : {}),
    };
    if (!caller.clients.includes(row.client)) caller.clients.push(row.client);
    caller.uses += row.count;
    if (lastSeen > caller.lastSeen) caller.lastSeen = lastSeen;
    byCaller.set(id, caller);
  }
  return [...byCaller.values()].map((caller) => ({ ...caller, clients: caller.clients.sort() }));
}

/** Both records' callers of one item, a key seen in both once (its larger count, its latest use). */
export function mergeCallers(usage: CallerSummary[] | null, shapes: ImpactCaller[] | null): ImpactCaller[] | null {
  if (usage === null && shapes === null) return null;
  const merged: ImpactCaller[] = (shapes ?? []).map((caller) => ({ ...caller }));
  for (const caller of usage ?? []) {
    const same = merged.find(
      (entry) =>
        entry.apiKeyId === caller.apiKeyId && (caller.apiKeyId > 0 || entry.clients.join() === caller.clients.join()),
    );
    if (!same) {
      merged.push({ ...caller, label: null, seenIn: ['usage'] });
      continue;
    }
    same.uses = Math.max(same.uses, caller.uses);
    same.brownoutHits += caller.brownoutHits;
    if (caller.lastSeen > same.lastSeen) same.lastSeen = caller.lastSeen;
    same.clients = [...new Set([...same.clients, ...caller.clients])].sort();
    same.seenIn = ['usage', 'shapes'];
  }
  return merged.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen) || a.apiKeyId - b.apiKeyId);
}

/** The shape record's coverage of a protocol over the window. */
export function coverageOf(coverage: ShapeCoverage[], protocol: ShapeProtocol, days: number): ImpactCoverage {
  return {
    days,
    measuredDays: coverage.filter((day) => day.served > 0 && day.flushed === day.served).length,
    dropped: coverage.reduce((sum, day) => sum + (day.dropped[protocol] ?? 0), 0),
  };
}
