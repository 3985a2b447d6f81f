/**
 * The admin lists of the retirement machinery — the brownout schedule, the deprecation report, an item's
 * callers and the notices sent to them — page as every list does (./paging.ts): the envelope, `size`,
 * `withTotal`, a whitelisted `sort` with a final tie-breaker, and signed cursors bound to the filters and
 * the sort. Their rows are few and already read whole (windows of the last 30 days, one row per registry
 * item, per caller, per notice), so they are paged in memory; the services keep answering whole lists to
 * the operator's commands.
 */

import type { RecordedNotice, UsagePort } from '../ports/index.js';
import type { CursorCodec } from '../shared/index.js';
import {
  type Caller,
  type ListInput,
  memberValue,
  type Page,
  pageInMemory,
  parseSort,
  requireAdmin,
  type SortKey,
} from '../shared/index.js';
import type { BrownoutService, BrownoutWindow } from './brownouts/index.js';
import type { CallerReport, DeprecationService, ItemReport } from './deprecations.js';

/** Sort keys of the brownout schedule. */
export const BROWNOUT_SORT_FIELDS = ['startsAt', 'endsAt', 'scheduledAt', 'id'] as const;
/** Sort keys of the deprecation report. */
export const DEPRECATION_SORT_FIELDS = ['id'] as const;
/** Sort keys of an item's callers; the caller's id (its key's, `apiKeyId`) is the final tie-breaker. */
export const CALLER_SORT_FIELDS = ['lastSeen', 'firstSeen', 'uses', 'brownoutHits', 'apiKeyId'] as const;
/** Sort keys of an item's notices; the record's id (the order of recording) is the final tie-breaker. */
export const NOTICE_SORT_FIELDS = ['notifiedAt', 'apiKeyId'] as const;

/** What the admin lists read. */
export interface AdminListDeps {
  brownouts: Pick<BrownoutService, 'list'>;
  deprecations: Pick<DeprecationService, 'list' | 'callers' | 'itemOf'>;
  usage: Pick<UsagePort, 'notices'>;
  cursors: CursorCodec;
}

/** The paged admin lists (admins only). */
export type AdminLists = ReturnType<typeof createAdminLists>;

/** Creates the paged admin lists over the brownout and deprecation services. */
export function createAdminLists({ brownouts, deprecations, usage, cursors }: AdminListDeps) {
  const options = (sort: SortKey[], input: ListInput, filters: Record<string, unknown>) => ({
    cursors,
    sort,
    size: input.size,
    cursor: input.cursor,
    filters,
    withTotal: input.withTotal,
  });

  return {
    /** The brownout schedule, earliest start first by default; a cursor is bound to `item` as well. */
    async brownouts(caller: Caller, filter: { item?: string }, input: ListInput = {}): Promise<Page<BrownoutWindow>> {
      requireAdmin(caller, 'list brownouts');
      const sort = parseSort(input.sort, BROWNOUT_SORT_FIELDS, 'startsAt');
      const windows = await brownouts.list(caller, filter);
      return pageInMemory(windows, options(sort, input, { item: filter.item ?? null }));
    },

    /** The deprecation report, by item id by default. */
    async deprecations(caller: Caller, input: ListInput = {}): Promise<Page<ItemReport>> {
      requireAdmin(caller, 'read the deprecation report');
      const sort = parseSort(input.sort, DEPRECATION_SORT_FIELDS, 'id');
      return pageInMemory(await deprecations.list(caller), {
        ...options(sort, input, {}),
        sortValueOf: (report) => report.item.id,
      });
    },

    /** An item's callers, most recent use first by default; a cursor is bound to the item and `days`. */
    async callers(caller: Caller, item: string, days: number, input: ListInput = {}): Promise<Page<CallerReport>> {
      requireAdmin(caller, 'read the deprecation report');
      const sort = parseSort(input.sort, CALLER_SORT_FIELDS, '-lastSeen');
      const { callers } = await deprecations.callers(caller, item, days);
      return pageInMemory(callers, {
        ...options(sort, input, { item, days }),
        sortValueOf: (entry, field) => (field === 'id' ? entry.apiKeyId : memberValue(entry, field)),
      });
    },

    /** The notices recorded about an item, newest first by default; a cursor is bound to the item. */
    async notices(caller: Caller, item: string, input: ListInput = {}): Promise<Page<RecordedNotice>> {
      requireAdmin(caller, 'read the deprecation report');
      deprecations.itemOf(item);
      const sort = parseSort(input.sort, NOTICE_SORT_FIELDS, '-notifiedAt');
      return pageInMemory(await usage.notices(item), options(sort, input, { item }));
    },
  };
}
