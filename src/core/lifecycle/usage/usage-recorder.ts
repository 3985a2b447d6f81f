/**
 * Records uses of registry items off the request path: `record` only adds to an in-memory buffer; a timer
 * flushes it every `flushMs` as one additive batch, and `close` flushes what is left. Memory is bounded:
 * at most `maxEntries` distinct (item, caller, kind, day) entries wait (further new entries are dropped,
 * reported to `onDropped` and written with the next flush per item and day, so that day is not taken for a
 * quiet one), and at most `maxClientsPerKey` distinct clients per key and UTC day are told apart (the rest
 * count as `other`; the count starts afresh each day, so new versions of a client are seen).
 *
 * Completeness: `register` notes the instance as serving before it takes requests, and every flush notes it
 * again for each day the flush completes; a day counts as measured only when every instance that served it
 * flushed for it. A crash loses the uses buffered since the last successful flush: at most `flushMs` of this
 * instance's traffic, more only while its writes fail (each failure goes to `onError`).
 */
import type { UsageCount, UsageDrop, UsageKind, UsagePort } from '../../ports/index.js';
import { clientTable, flushLoop, utcDays } from '../../shared/index.js';

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
  /** Identifies this instance in its heartbeats and dropped counts (host and process id, say). */
  instance: string;
  flushMs?: number;
  maxEntries?: number;
  maxClientsPerKey?: number;
  onError?: (error: unknown) => void;
  /** Told of every use dropped because the buffer was full (a metric, say). */
  onDropped?: (drop: UsageDrop) => void;
  now?: () => Date;
}

/** A running recorder. */
export interface UsageRecorder {
  record(event: UsageEvent): void;
  /** Writes what is buffered now (tests and shutdown). */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
  /** Uses dropped because the buffer was full, since start. */
  readonly dropped: number;
}

/** The recorder its owner holds: the one that also registers the instance. */
export interface InstanceUsageRecorder extends UsageRecorder {
  /** Notes this instance as serving today, before it takes requests (a failure is thrown). */
  register(): Promise<void>;
}

/** Starts a recorder with its flush timer. */
export function createUsageRecorder({
  port,
  instance,
  flushMs = 5000,
  maxEntries = 10_000,
  maxClientsPerKey = 20,
  onError = () => undefined,
  onDropped = () => undefined,
  now = () => new Date(),
}: UsageRecorderOptions): InstanceUsageRecorder {
  const buffer = usageBuffer(maxEntries, onDropped);
  const clientFor = clientTable(maxEntries, maxClientsPerKey);
  const dayOf = utcDays();
  const loop = flushLoop(
    {
      take: buffer.take,
      restore: buffer.restore,
      write: (taken, { at, days }) => port.add(taken.counts, { instance, at, days, dropped: taken.drops }),
      register: (at) => port.register({ instance, at }),
    },
    { flushMs, onError, now },
  );

  return {
    record({ item, apiKeyId, client, kind = 'use' }) {
      const at = now();
      const key = apiKeyId ?? 0;
      const day = dayOf(at.getTime());
      buffer.add({
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
    register: loop.register,
    flush: loop.flush,
    close: loop.close,
    get dropped() {
      return buffer.dropped;
    },
  };
}

/**
 * The counts waiting for a flush, at most `maxEntries` distinct ones; a new entry beyond that is dropped,
 * told to `onDropped` and kept as a count per item and day, written with the flush.
 */
function usageBuffer(maxEntries: number, onDropped: (drop: UsageDrop) => void) {
  let counts = new Map<string, UsageCount>();
  let drops = new Map<string, UsageDrop>();
  let dropped = 0;

  const addDrop = ({ item, day, count }: UsageDrop) => {
    const id = `${item}\u0000${day}`;
    const existing = drops.get(id);
    if (existing) existing.count += count;
    else drops.set(id, { item, day, count });
  };

  const add = (entry: UsageCount) => {
    const id = `${entry.item}\u0000${entry.apiKeyId}\u0000${entry.client}\u0000${entry.kind}\u0000${entry.day}`;
    const existing = counts.get(id);
    if (existing) {
      existing.count += entry.count;
      if (entry.firstSeen < existing.firstSeen) existing.firstSeen = entry.firstSeen;
      if (entry.lastSeen > existing.lastSeen) existing.lastSeen = entry.lastSeen;
    } else if (counts.size >= maxEntries) {
      const drop = { item: entry.item, day: entry.day, count: entry.count };
      dropped += drop.count;
      addDrop(drop);
      onDropped(drop);
    } else {
      counts.set(id, { ...entry });
    }
  };

  return {
    add,
    /** Empties the buffer and returns what it held. */
    take() {
      const taken = { counts: [...counts.values()], drops: [...drops.values()] };
      counts = new Map();
      drops = new Map();
      return taken;
    },
    /** Puts back what a failed flush took, within the same bound (what no longer fits is dropped). */
    restore(taken: { counts: UsageCount[]; drops: UsageDrop[] }) {
      for (const entry of taken.counts) add(entry);
      for (const drop of taken.drops) addDrop(drop);
    },
    get dropped() {
      return dropped;
    },
  };
}
