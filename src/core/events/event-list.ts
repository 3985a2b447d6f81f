/** GET /v1/events: the caller's events of the last 30 days, newest first, to reconcile missed deliveries. */

import type { EventStore } from '../ports/index.js';
import type { Caller, CursorCodec, EventType, StoredEvent } from '../shared/index.js';
import { type ListInput, readPage } from '../shared/index.js';
import { EVENT_RETENTION_MS } from './webhook-endpoints.js';

/** What the list is filtered by. */
export interface EventListInput extends ListInput {
  types?: EventType[];
  createdAfter?: Date;
}

/** Creates the event list. */
export function createEventList(deps: { events: EventStore; cursors: CursorCodec; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return (caller: Caller, input: EventListInput) => {
    const filter = {
      ...(caller.role === 'admin' ? {} : { ownerUserId: caller.userId }),
      ...(input.types ? { types: input.types } : {}),
    };
    const since = new Date(Math.max(now().getTime() - EVENT_RETENTION_MS, input.createdAfter?.getTime() ?? 0));
    return readPage<StoredEvent>({
      cursors: deps.cursors,
      sort: [{ field: 'seq', descending: true }],
      size: input.size,
      cursor: input.cursor,
      filters: { list: 'events', ...filter, createdAfter: input.createdAfter?.toISOString() ?? null },
      withTotal: input.withTotal,
      keys: (event) => [event.seq],
      count: () => deps.events.count(filter, since),
      fetch: (after, limit) =>
        deps.events.list(filter, {
          limit,
          since,
          ...(after ? { beforeSeq: after[0] as number } : {}),
        }),
    });
  };
}
