import type { EventFilter, StoredEvent } from '../shared/index.js';

/**
 * A reader's place in the outbox: after the event `seq` of transaction `txId`. Readers follow this order,
 * not `seq` alone, since a transaction that took a lower seq may commit after one that took a higher.
 */
export interface EventPosition {
  txId: number;
  seq: number;
}

/** Reads of the outbox of events (the writes happen inside the store's own transactions). */
export interface EventStore {
  /**
   * Committed events after `position` that pass the filter, in commit-safe order, at most `limit`, and
   * the position to read from next. Only events of transactions older than every running one are read,
   * so no event can later appear before the returned position; `heldBack` tells that committed events
   * wait behind such a running transaction (read again soon: its end wakes no reader). An event waits, too,
   * while an event of its subject with a lower `seq` is not yet readable, so that the reader, handing each
   * batch over in `seq` order, keeps one subject's events in commit order; a batch grows past `limit` when
   * its first event waits for one further on.
   */
  after(
    position: EventPosition,
    filter: EventFilter,
    limit: number,
  ): Promise<{ events: StoredEvent[]; next: EventPosition; heldBack: boolean }>;
  /** The position before every event a transaction running or started from now writes: where a new stream starts. */
  head(): Promise<EventPosition>;
  /**
   * A page of the events list (GET /v1/events): newest first, created after `since`, below `beforeSeq`
   * when continuing a page.
   */
  list(filter: EventFilter, page: { since: Date; beforeSeq?: number; limit: number }): Promise<StoredEvent[]>;
  /** How many events the list would hold. */
  count(filter: EventFilter, since: Date): Promise<number>;
  /** One event by its public id. */
  get(id: string): Promise<StoredEvent | undefined>;
}

/** What a transaction of the store offers the code that runs in it: work to do once it has committed. */
export interface CommitHooks {
  afterCommit(callback: () => void): void;
}

/**
 * How a transaction that wrote events wakes the event feed of every instance. A wake-up only says "look":
 * it carries no event, the feeds read the committed rows from the table, so a lost one costs time (until
 * the feed's poll), never an event.
 */
export interface EventWakeups {
  /**
   * The channel the statement that writes events notifies itself (PostgreSQL NOTIFY, sent when its
   * transaction commits: `eventWriteSql`); undefined when wake-ups travel after the commit (`announce`).
   */
  readonly notifyChannel: string | undefined;
  /**
   * Called in the transaction (or by the single statement) that wrote events: every feed is woken once it
   * commits, never if it rolls back.
   */
  announce(tx: CommitHooks): Promise<void>;
  /**
   * Calls `onWake` on every wake-up, and after a lost connection came back (wake-ups may have been missed).
   * Resolves once listening (or, for Redis, once asked to: it may be away), to a stop function.
   */
  listen(onWake: () => void): Promise<() => Promise<void>>;
  /** What is degraded while wake-ups cannot travel (the feed then waits for its poll); undefined when fine. */
  degraded(): string | undefined;
  /** Closes the connections of the wake-ups (after the last write of the instance). */
  close(): Promise<void>;
}
