/**
 * Records uses of registry items off the request path: `record` only adds to an in-memory buffer; a timer
 * flushes it every `flushMs` as one additive batch, and `close` flushes what is left. Memory is bounded:
 * at most `maxEntries` distinct (item, caller, kind, day) entries wait (further new entries are dropped and
 * counted), and at most `maxClientsPerKey` distinct clients per key and UTC day are told apart (the rest
 * count as `other`; the count starts afresh each day, so new versions of a client are seen). A crash loses at most the last `flushMs` of counts.
 */
import type { UsageCount, UsageKind, UsagePort } from './ports/usage.js';

/** One use as a transport reports it. */
export interface UsageEvent {
  item: string;
  /** The issued key's id; 0 or null = anonymous. */
  apiKeyId: number | null;
  /** `name/version` or `unknown`. */
  client: string;
  kind?: UsageKind;
}

/** The recorder's settings. */
export interface UsageRecorderOptions {
  port: UsagePort;
  /** Identifies this instance in the flush log (host and process id, say). */
  instance: string;
  flushMs?: number;
  maxEntries?: number;
  maxClientsPerKey?: number;
  onError?: (error: unknown) => void;
  now?: () => Date;
}

/** A running recorder. */
export interface UsageRecorder {
  record(event: UsageEvent): void;
  /** Writes what is buffered now (tests and shutdown). */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
  /** Entries dropped because the buffer was full, since start. */
  readonly dropped: number;
}

/** Starts a recorder with its flush timer. */
export function createUsageRecorder({
  port,
  instance,
  flushMs = 5000,
  maxEntries = 10_000,
  maxClientsPerKey = 20,
  onError = () => undefined,
  now = () => new Date(),
}: UsageRecorderOptions): UsageRecorder {
  let buffer = new Map<string, UsageCount>();
  let dropped = 0;
  let flushing: Promise<void> = Promise.resolve();

  const clientFor = clientTable(maxEntries, maxClientsPerKey);
  const dayOf = utcDays();

  const write = async () => {
    const batch = [...buffer.values()];
    buffer = new Map();
    try {
      await port.add(batch, { instance, at: now() });
    } catch (error) {
      onError(error);
      // Keep the counts for the next flush, within the same bound.
      for (const entry of batch) merge(entry);
    }
  };

  const merge = (entry: UsageCount) => {
    const id = `${entry.item}\u0000${entry.apiKeyId}\u0000${entry.client}\u0000${entry.kind}\u0000${entry.day}`;
    const existing = buffer.get(id);
    if (existing) {
      existing.count += entry.count;
      if (entry.firstSeen < existing.firstSeen) existing.firstSeen = entry.firstSeen;
      if (entry.lastSeen > existing.lastSeen) existing.lastSeen = entry.lastSeen;
    } else if (buffer.size >= maxEntries) {
      dropped += entry.count;
    } else {
      buffer.set(id, { ...entry });
    }
  };

  const flush = () => {
    flushing = flushing.then(write);
    return flushing;
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    record({ item, apiKeyId, client, kind = 'use' }) {
      const at = now();
      const key = apiKeyId ?? 0;
      const day = dayOf(at.getTime());
      merge({
        item,
        apiKeyId: key,
        client: clientFor(key, client, day),
        kind,
        day,
        count: 1,
        firstSeen: at,
        lastSeen: at,
      });
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    get dropped() {
      return dropped;
    },
  };
}

/**
 * The client names told apart per key and UTC day: at most `maxClientsPerKey` (the rest are `other`), for at
 * most `maxKeys` keys (a flood of keys starts the per-key sets afresh).
 */
function clientTable(maxKeys: number, maxClientsPerKey: number) {
  const clientsByKey = new Map<number, Set<string>>();
  let clientsDay = '';
  return (apiKeyId: number, client: string, day: string): string => {
    if (day !== clientsDay) {
      clientsByKey.clear();
      clientsDay = day;
    }
    let seen = clientsByKey.get(apiKeyId);
    if (!seen) {
      if (clientsByKey.size >= maxKeys) clientsByKey.clear();
      seen = new Set();
      clientsByKey.set(apiKeyId, seen);
    }
    if (seen.has(client)) return client;
    if (seen.size >= maxClientsPerKey) return 'other';
    seen.add(client);
    return client;
  };
}

/** The UTC day (YYYY-MM-DD) of a time, formatted once per day rather than on every use. */
function utcDays(): (time: number) => string {
  const DAY_MS = 86_400_000;
  let start = 0;
  let end = -1;
  let name = '';
  return (time) => {
    if (time < start || time >= end) {
      start = time - (((time % DAY_MS) + DAY_MS) % DAY_MS);
      end = start + DAY_MS;
      name = new Date(start).toISOString().slice(0, 10);
    }
    return name;
  };
}
