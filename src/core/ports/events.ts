import type { EventType, StoredEvent } from '../events.js';

/** Which events a reader may see and wants. */
export interface EventFilter {
  /** `undefined`: every owner (admins); else events of this user only. */
  ownerUserId?: number;
  types?: readonly EventType[];
  createdAfter?: Date;
}

/** Committed events. Writing them is the store's, inside the transaction of each change. */
export interface EventStore {
  /** Events after a place in the feed, oldest first. */
  after(seq: number, filter: EventFilter, limit: number): Promise<StoredEvent[]>;
  /** Newest first, before a place in the feed (for pages). */
  list(filter: EventFilter, page: { beforeSeq?: number; limit: number; since: Date }): Promise<StoredEvent[]>;
  get(id: string): Promise<StoredEvent | undefined>;
}
