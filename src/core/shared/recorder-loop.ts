/**
 * What the two recorders share (./usage-recorder.ts, ./shape-recorder.ts): the flush loop, the UTC day of a
 * time, and the table of client names told apart per key.
 *
 * The loop: a timer flushes the buffer every `flushMs` as one additive batch, and `close` flushes what is
 * left. Registration and flushes run one after the other; a failed one lets the next run, and a failed flush
 * puts back what it took (each failure goes to `onError`). Each flush names the UTC days it completes for
 * its instance: from the day of its last successful flush (or of its registration) to today.
 */

/** A recorder's buffer and port, as the loop drives them. */
export interface FlushSide<Taken> {
  /** Empties the buffer and returns what it held. */
  take(): Taken;
  /** Puts back what a failed flush took. */
  restore(taken: Taken): void;
  /** Writes what was taken, noting the days this flush completes. */
  write(taken: Taken, flush: { at: Date; days: string[] }): Promise<void>;
  /** Notes the instance as serving from `at` on. */
  register(at: Date): Promise<void>;
}

/** Starts the flush timer of a recorder. */
export function flushLoop<Taken>(
  side: FlushSide<Taken>,
  { flushMs, onError, now }: { flushMs: number; onError: (error: unknown) => void; now: () => Date },
) {
  const dayOf = utcDays();
  // The first day the next flush completes: the day of the last successful flush or of the registration.
  let pendingFrom: string | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async () => {
    const at = now();
    const today = dayOf(at.getTime());
    const taken = side.take();
    try {
      await side.write(taken, { at, days: daysBetween(pendingFrom ?? today, today) });
      pendingFrom = today;
    } catch (error) {
      onError(error);
      side.restore(taken);
    }
  };
  const enqueue = (work: () => Promise<void>) => {
    const next = writing.then(work);
    writing = next.catch(() => undefined);
    return next;
  };
  const flush = () => enqueue(write);
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    flush,
    /** Notes this instance as serving today, before it takes requests (a failure is thrown). */
    register: () =>
      enqueue(async () => {
        const at = now();
        await side.register(at);
        pendingFrom ??= dayOf(at.getTime());
      }),
    /** Stops the timer and flushes. */
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** The UTC days from `first` to `last`, both included (`last` alone when `first` is not before it). */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${first}T00:00:00Z`); ; time += 86_400_000) {
    const day = new Date(time).toISOString().slice(0, 10);
    if (day >= last) break;
    days.push(day);
  }
  days.push(last);
  return days;
}

/**
 * The client names told apart per key and UTC day: at most `maxClientsPerKey` (the rest are `other`), for at
 * most `maxKeys` keys (a flood of keys starts the per-key sets afresh).
 */
export function clientTable(maxKeys: number, maxClientsPerKey: number) {
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
export function utcDays(): (time: number) => string {
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
