import { setMaxListeners } from 'node:events';
import type { EventPosition, EventStore } from '../core/ports/events.js';
import { type EventFilter, matchesFilter, type StoredEvent } from '../core/shared/events.js';
import type { EventWakeups } from './event-wakeups.js';

const BATCH = 200;
/** The first look again at events held back behind an older running transaction (doubling up to 500 ms). */
const HELD_BACK_FIRST_LOOK_MS = 25;
/** The longest wait between those looks: a long poll interval must not delay what is only held back. */
const HELD_BACK_LAST_LOOK_MS = 500;
/** Events a subscriber may have unread before it is ended as too slow (it can resume from the events list). */
const DEFAULT_MAX_QUEUED = 1000;

/** Committed events as they happen, for every reader of one process. */
export interface EventFeed {
  /**
   * Events that pass `filter` and were not yet read by the feed when this call returned (so every change
   * committed from then on), in commit-safe order, until `signal` aborts or the feed closes (then the iteration ends cleanly). A subscriber that falls `maxQueued` events behind is
   * ended with an error instead of holding memory.
   */
  subscribe(filter: EventFilter, signal: AbortSignal): AsyncIterable<StoredEvent>;
  /** Stops listening; open subscriptions end. */
  close(): Promise<void>;
}

/** Options of the feed: the poll interval of the fallback and the queue bound per subscriber. */
export interface EventFeedOptions {
  /**
   * How often the feed looks at the table without a wake-up (a lost one, Redis away, or a late-finishing
   * transaction): the bound on how late such an event reaches subscribers (EVENT_FEED_POLL_MS).
   */
  pollMs: number;
  maxQueued?: number;
}

interface Subscriber {
  filter: EventFilter;
  queue: StoredEvent[];
  overflowed: boolean;
  wake?: () => void;
}

/** The events queued for one subscriber, as they come, until its signal or the feed's aborts. */
async function* drain(
  subscriber: Subscriber,
  signal: AbortSignal,
  closing: AbortSignal,
  subscribers: Set<Subscriber>,
): AsyncGenerator<StoredEvent> {
  const stop = () => subscriber.wake?.();
  signal.addEventListener('abort', stop);
  closing.addEventListener('abort', stop);
  try {
    for (;;) {
      if (signal.aborted || closing.aborted) return;
      const event = subscriber.queue.shift();
      if (event) {
        yield event;
        continue;
      }
      if (subscriber.overflowed) throw new Error('The subscriber fell too far behind the events and was ended.');
      await new Promise<void>((resolve) => (subscriber.wake = resolve));
      subscriber.wake = undefined;
    }
  } finally {
    subscribers.delete(subscriber);
    signal.removeEventListener('abort', stop);
    closing.removeEventListener('abort', stop);
  }
}

/**
 * The feed's reader: reads the rows after its position on each `look` (one read at a time; a look during a
 * read reads again after it) and hands each event to `deliver`. While committed events are held back behind
 * an older running transaction, it looks again by itself, soon (after 25 ms, doubling up to 500 ms or the poll
 * interval): the end of that transaction wakes no one when it wrote no event.
 */
function createReader(events: EventStore, start: EventPosition, deliver: (event: StoredEvent) => void, pollMs: number) {
  let position = start;
  let reading: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let soon: NodeJS.Timeout | undefined;
  let soonMs = HELD_BACK_FIRST_LOOK_MS;
  const readNew = async (): Promise<boolean> => {
    for (;;) {
      const batch = await events.after(position, {}, BATCH);
      position = batch.next;
      // Read in the order of their transactions' ids, delivered in `seq` order: one subject's events in
      // `seq` order are in the order their transactions committed (each writer holds the subject's row while
      // it takes the `seq`), and `after` never hands over an event before its subject's earlier ones.
      for (const event of [...batch.events].sort((a, b) => a.seq - b.seq)) deliver(event);
      if (batch.events.length < BATCH) return batch.heldBack;
    }
  };
  const lookSoonIf = (heldBack: boolean) => {
    if (!heldBack) soonMs = HELD_BACK_FIRST_LOOK_MS;
    if (!heldBack || soon) return;
    soon = setTimeout(() => {
      soon = undefined;
      look();
    }, soonMs);
    soon.unref();
    soonMs = Math.min(soonMs * 2, HELD_BACK_LAST_LOOK_MS, pollMs);
  };
  const look = () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = readNew()
      .then(lookSoonIf)
      .catch(() => undefined) // the database is away: the next wake-up or poll tries again
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          look();
        }
      });
  };
  return {
    look,
    async close() {
      closed = true;
      clearTimeout(soon);
      await reading;
    },
  };
}

/**
 * One listener of wake-ups (a LISTEN, or a Redis subscription) and one reader per process: a wake-up (or the
 * poll) wakes the reader, which reads the rows after its position once and hands each to the subscribers
 * whose filter it passes. The wake-up only says "look"; the table is the truth, so every instance sees the
 * same events in the same order.
 * The reader follows the table even with no subscriber (one indexed read per commit), so a subscription
 * starts where the feed stands, without a gap.
 */
export async function createEventFeed(
  wakeups: Pick<EventWakeups, 'listen'>,
  events: EventStore,
  { pollMs, maxQueued = DEFAULT_MAX_QUEUED }: EventFeedOptions,
): Promise<EventFeed> {
  const subscribers = new Set<Subscriber>();
  const closing = new AbortController();
  // Every open subscription follows the feed's closing (a listener each while it is open): not a leak.
  setMaxListeners(0, closing.signal);
  const deliver = (event: StoredEvent) => {
    for (const subscriber of subscribers) {
      if (!matchesFilter(event, subscriber.filter)) continue;
      if (subscriber.queue.length >= maxQueued) subscriber.overflowed = true;
      else subscriber.queue.push(event);
      subscriber.wake?.();
    }
  };
  const reader = createReader(events, await events.head(), deliver, pollMs);
  const stopListening = await wakeups.listen(reader.look);
  const poll = setInterval(reader.look, pollMs);
  poll.unref();

  // Registered at once (not at the first read of the iterator), so that a reader can subscribe, then read
  // the current state, and miss no change in between.
  const subscribe = (filter: EventFilter, signal: AbortSignal): AsyncIterable<StoredEvent> => {
    const subscriber: Subscriber = { filter, queue: [], overflowed: false };
    subscribers.add(subscriber);
    const events = drain(subscriber, signal, closing.signal, subscribers);
    // An iterator never read still unregisters when its signal aborts.
    signal.addEventListener('abort', () => subscribers.delete(subscriber), { once: true });
    return events;
  };

  return {
    subscribe,
    async close() {
      closing.abort();
      clearInterval(poll);
      await stopListening();
      await reader.close();
    },
  };
}
