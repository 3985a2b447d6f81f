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
