/** The retirement report: deprecated and watched items, their callers, and the notices sent to them. */

import { describeItem } from '@order-api/contract-registry';
import { brownoutRepresentation } from '../core/events/representations.js';
import type { Core } from '../core/index.js';
import type { BrownoutWindow } from '../core/lifecycle/brownouts/brownouts.js';
import type { CallerReport, ItemReport, RecordedNotice } from '../core/lifecycle/deprecations.js';
import { pageJson } from './mappers.js';
import { json, type RestHandlerGroup, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

const iso = (date: Date) => date.toISOString();

function entryJson({
  item,
  state,
  uses,
  replacementUses,
  brownoutHits,
  brownouts,
}: ItemReport): Schemas['DeprecationEntry'] {
  return {
    ...describeItem(item),
    state,
    uses,
    replacementUses,
    brownoutHits,
    brownouts: brownouts.map((window) => ({
      id: window.id,
      startsAt: iso(window.startsAt),
      endsAt: iso(window.endsAt),
    })),
  };
}

const brownoutJson = (window: BrownoutWindow, now: Date): Schemas['Brownout'] => brownoutRepresentation(window, now);

const isoOrNull = (date: Date | null) => (date ? iso(date) : null);

const noticeJson = (notice: Omit<RecordedNotice, 'id' | 'item'>): Schemas['DeprecationNotice'] => ({
  apiKeyId: notice.apiKeyId,
  channel: notice.channel,
  note: notice.note,
  notifiedAt: iso(notice.notifiedAt),
  eventId: notice.eventId,
  deliveries: notice.deliveries.map((delivery) => ({
    ...delivery,
    lastAttemptAt: isoOrNull(delivery.lastAttemptAt),
    succeededAt: isoOrNull(delivery.succeededAt),
  })),
});

function callerJson(caller: CallerReport): Schemas['DeprecationCaller'] {
  return {
    apiKeyId: caller.apiKeyId,
    label: caller.label,
    owner: caller.apiKeyId === 0 ? null : { name: caller.ownerName, email: caller.ownerEmail },
    clients: caller.clients.map((client) => ({
      ...client,
      firstSeen: iso(client.firstSeen),
      lastSeen: iso(client.lastSeen),
    })),
    uses: caller.uses,
    replacementUses: caller.replacementUses,
    brownoutHits: caller.brownoutHits,
    surfacedByBrownout: caller.surfacedByBrownout,
    firstSeen: iso(caller.firstSeen),
    lastSeen: iso(caller.lastSeen),
    daily: caller.daily,
    notified: caller.notices.length > 0,
    notices: caller.notices.map((notice) => noticeJson({ apiKeyId: caller.apiKeyId, ...notice })),
  };
}

/** The handlers of the Deprecations tag. */
export function createDeprecationHandlers(core: Core) {
  return {
    async getDeprecationReport(request) {
      const page = await core.adminLists.deprecations(callerOf(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, entryJson) satisfies Schemas['DeprecationList']);
    },

    async getDeprecationCallers(request) {
      const days = request.query.days ? Number(request.query.days) : 30;
      const item = request.params.item as string;
      const page = await core.adminLists.callers(callerOf(request), item, days, listInput(request.query));
      return json(request.c, 200, pageJson(page, callerJson) satisfies Schemas['DeprecationCallerList']);
    },

    async listDeprecationNotices(request) {
      const item = request.params.item as string;
      const page = await core.adminLists.notices(callerOf(request), item, listInput(request.query));
      return json(request.c, 200, pageJson(page, noticeJson) satisfies Schemas['DeprecationNoticeList']);
    },

    async getBrownoutSchedule(request) {
      const item = request.query.item;
      const page = await core.adminLists.brownouts(callerOf(request), item ? { item } : {}, listInput(request.query));
      const now = core.brownouts.now();
      const body = pageJson(page, (window) => brownoutJson(window, now));
      return json(request.c, 200, body satisfies Schemas['BrownoutList']);
    },

    async createBrownout(request) {
      const input = request.body as Schemas['BrownoutCreate'];
      const window = await core.brownouts.schedule(callerOf(request), {
        item: input.item,
        startsAt: new Date(input.startsAt),
        endsAt: new Date(input.endsAt),
        ...(input.note !== undefined ? { note: input.note } : {}),
      });
      return json(request.c, 201, brownoutJson(window, core.brownouts.now()), {
        Location: `${request.base}/brownouts/${window.id}`,
      });
    },

    async getBrownout(request) {
      const window = await core.brownouts.get(callerOf(request), pathId(request, 'brownoutId'));
      return json(request.c, 200, brownoutJson(window, core.brownouts.now()));
    },

    async cancelBrownout(request) {
      const window = await core.brownouts.cancel(callerOf(request), pathId(request, 'brownoutId'));
      return json(request.c, 200, brownoutJson(window, core.brownouts.now()));
    },

    async createDeprecationNotices(request) {
      const input = request.body as Schemas['DeprecationNoticeCreate'];
      const notices = await core.deprecations.notify(callerOf(request), request.params.item as string, {
        ...(input.apiKeyIds !== undefined ? { apiKeyIds: input.apiKeyIds } : {}),
        channel: input.channel,
        ...(input.note !== undefined ? { note: input.note } : {}),
        ...(input.notifiedAt !== undefined ? { notifiedAt: new Date(input.notifiedAt) } : {}),
      });
      // The notices recorded, one per key (none when nobody used the item): the list envelope, in one page.
      const body: Schemas['DeprecationNoticeList'] = { items: notices.map(noticeJson), hasNext: false };
      return json(request.c, 201, body);
    },
  } satisfies RestHandlerGroup;
}
