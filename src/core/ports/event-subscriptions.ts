import type { EventFilter, StoredEvent } from '../shared/index.js';

/**
 * The process's feed of committed events as the core's streams read it (src/store/event-feed.ts: one
 * listener per process, fanned out to in-process subscribers).
 */
export interface EventSubscriptions {
  /** Events committed after the call that pass `filter`, until `signal` aborts (then the iteration ends). */
  subscribe(filter: EventFilter, signal: AbortSignal): AsyncIterable<StoredEvent>;
}
