/** What a watch reads of one committed event. */
export interface FeedEvent {
  id: string;
  type: string;
  createdAt: Date;
  subject: string;
  ownerUserId: number | null;
  data: { object: unknown };
}

/** Which committed events a subscriber wants. */
export interface FeedFilter {
  types?: readonly string[];
  subject?: string;
}

/** The process's feed of committed events (one listener, fanned out to in-process subscribers). */
export interface EventSubscriptions {
  /** Events committed after the call that match `filter`, until `signal` aborts (then the iteration ends). */
  subscribe(filter: FeedFilter, signal: AbortSignal): AsyncIterable<FeedEvent>;
}
