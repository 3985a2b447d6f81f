/**
 * Brownouts (spec §9.2 rule 8: "block briefly at an announced time to surface unmeasured callers"). An
 * admin schedules a short window for a deprecated item at least `noticeDays` ahead; from then on the
 * window is announced (the published registry, the reference page, and in-band on every use of the item),
 * and while it runs every request that uses the item is refused with `BROWNOUT`. The windows live in the
 * database; each instance keeps the live ones in memory and reloads them every few seconds (`refresh`),
 * so every instance blocks the same windows. The check on the request path is a map lookup.
 */

import type { DeprecationRegistry, RegistryItem } from '@order-api/contract-registry';
import type { BrownoutStore, BrownoutWindow } from '../../ports/index.js';
import type { Caller } from '../../shared/index.js';
import { DomainError, invalidInput, requireAdmin } from '../../shared/index.js';
import { brownoutMails } from '../notices/index.js';
import { orphanRetirer } from './brownout-orphans.js';

export type { BrownoutWindow } from '../../ports/index.js';

/** What an admin asks for. */
export interface BrownoutInput {
  item: string;
  startsAt: Date;
  endsAt: Date;
  note?: string;
}

/** A refused use: the error every interface reports, the window and the item. */
export interface BrownoutRefusal {
  error: DomainError;
  window: BrownoutWindow;
  item: RegistryItem;
  /** Every used item in a running window (each counted as a brownout hit of the refused request). */
  blocked: RegistryItem[];
  /** Whole seconds until the window ends (at least 1): the `Retry-After` of every interface. */
  retryAfterSeconds: number;
}

/** The settings of the brownout service. */
export interface BrownoutOptions {
  store: BrownoutStore;
  registry: DeprecationRegistry;
  now?: () => Date;
  /** Days between scheduling a window and its start (default 7). */
  noticeDays?: number;
  /** The longest window, in minutes (default 24 hours). */
  maxMinutes?: number;
  /** Whether each notified caller is also mailed (SMTP_URL): the mail is queued with the event. */
  mailNotices?: boolean;
}

/** Where a window stands. */
export type WindowState = 'announced' | 'running' | 'ended' | 'cancelled';

/** The state of a window at a time. */
export function windowState(window: BrownoutWindow, at: Date): WindowState {
  if (window.cancelledAt) return 'cancelled';
  if (at < window.startsAt) return 'announced';
  return at < window.endsAt ? 'running' : 'ended';
}

const DAY_MS = 86_400_000;
/** Ended windows the admin list still shows. */
const LIST_PAST_DAYS = 30;

/** The brownout service. */
export function createBrownoutService({
  store,
  registry,
  now = () => new Date(),
  noticeDays = 7,
  maxMinutes = 24 * 60,
  mailNotices = false,
}: BrownoutOptions) {
  const items = new Map(registry.items.map((item) => [item.id, item]));
  const live = createLiveWindows(store, now, registry);
  const { refresh, active, retireOrphans } = live;
  return {
    noticeDays,
    maxMinutes,
    now,
    refresh,
    retireOrphans,

    /** Schedules a window; the item must be deprecated and the start at least `noticeDays` away. */
    async schedule(caller: Caller, input: BrownoutInput): Promise<BrownoutWindow> {
      requireAdmin(caller, 'schedule brownouts');
      const scheduledAt = now();
      const item = checkedWindow(input, items.get(input.item), { scheduledAt, noticeDays, maxMinutes });
      const { startsAt, endsAt } = input;
      const stored = await store.schedule(
        { item: item.id, startsAt, endsAt, note: input.note ?? null, scheduledAt, scheduledBy: caller.userId },
        brownoutMails(mailNotices, item, input),
      );
      if ('overlaps' in stored) throw overlapping(stored.overlaps);
      await refresh();
      return stored.window;
    },

    /** Windows that are upcoming, running, or ended in the last 30 days (cancelled ones too), by start. */
    async list(caller: Caller, filter: { item?: string } = {}): Promise<BrownoutWindow[]> {
      requireAdmin(caller, 'list brownouts');
      return store.list({ ...filter, endedAfter: new Date(now().getTime() - LIST_PAST_DAYS * DAY_MS) });
    },
    async get(caller: Caller, id: number): Promise<BrownoutWindow> {
      requireAdmin(caller, 'read brownouts');
      return windowOf(store, id);
    },
    /** Cancels an upcoming or running window (a running one ends now); cancelling twice is harmless. */
    async cancel(caller: Caller, id: number): Promise<BrownoutWindow> {
      requireAdmin(caller, 'cancel brownouts');
      const window = await windowOf(store, id);
      if (window.cancelledAt) return window;
      if (window.endsAt <= now()) {
        throw new DomainError('BROWNOUT_CONFLICT', `Brownout ${id} ended at ${window.endsAt.toISOString()}.`);
      }
      const cancelled = (await store.cancel(id, now(), caller.userId)) as BrownoutWindow;
      await refresh();
      return cancelled;
    },

    /** The windows of an item that have not ended (announced and running), from memory. */
    announced: live.announced,
    active,

    /**
     * The refusal of a request that uses these items (any registry ids: only deprecated items ever have
     * windows), when one of them is in a running window; the same error on every interface. Cheap when no
     * window is live (one map size check).
     */
    refusal(used: Iterable<string>): BrownoutRefusal | undefined {
      if (live.empty()) return undefined;
      const at = now();
      const blocked = [...new Set(used)].flatMap((id) => {
        const window = active(id, at);
        const item = items.get(id);
        return window && item ? [{ item, window }] : [];
      });
      return refusalOf(blocked, at);
    },
  };
}

/**
 * The windows not cancelled and not ended at the last refresh, in memory, by item and in start order: only
 * those of items the registry deprecates (a window of an item that is not is never blocked or announced).
 */
function createLiveWindows(store: BrownoutOptions['store'], now: () => Date, registry: DeprecationRegistry) {
  const deprecated = new Set(registry.items.filter((item) => item.status === 'deprecated').map((item) => item.id));
  let live = new Map<string, BrownoutWindow[]>();
  /** The running window of an item, if any. */
  const active = (id: string, at = now()): BrownoutWindow | undefined => {
    const windows = live.get(id);
    if (!windows) return undefined;
    const time = at.getTime();
    return windows.find((window) => window.startsAt.getTime() <= time && time < window.endsAt.getTime());
  };
  return {
    async refresh(): Promise<void> {
      const next = new Map<string, BrownoutWindow[]>();
      for (const window of await store.list({ endedAfter: now() })) {
        if (!window.cancelledAt && deprecated.has(window.item)) {
          next.set(window.item, [...(next.get(window.item) ?? []), window]);
        }
      }
      live = next;
    },
    /** The windows of an item that have not ended (announced and running). */
    announced(id: string): BrownoutWindow[] {
      const time = now().getTime();
      return (live.get(id) ?? []).filter((window) => window.endsAt.getTime() > time);
    },
    active,
    empty: () => live.size === 0,
    /**
     * Cancels the windows of items this registry does not deprecate (a deprecation undone), not ended and
     * scheduled before this instance started, with a note saying why; returns them (src/compose/server.ts calls it
     * after each refresh; once it has succeeded, it does nothing more).
     */
    retireOrphans: orphanRetirer(store, deprecated, now),
  };
}

/** Checks a window to schedule (docs/decisions.md §7): a deprecated item, enough notice, a bounded length. */
function checkedWindow(
  input: BrownoutInput,
  item: RegistryItem | undefined,
  { scheduledAt, noticeDays, maxMinutes }: { scheduledAt: Date; noticeDays: number; maxMinutes: number },
): RegistryItem {
  if (!item) throw invalidInput('/item', 'names no item of the deprecation registry');
  if (item.status !== 'deprecated') {
    throw invalidInput('/item', 'is watched, not deprecated: announce its sunset in the contract first');
  }
  const earliest = new Date(scheduledAt.getTime() + noticeDays * DAY_MS);
  if (input.startsAt < earliest) {
    throw invalidInput(
      '/startsAt',
      `must be at least ${noticeDays} days ahead, so that callers see the window announced: ${earliest.toISOString()} or later`,
    );
  }
  const minutes = (input.endsAt.getTime() - input.startsAt.getTime()) / 60_000;
  if (minutes <= 0) throw invalidInput('/endsAt', 'must be after startsAt');
  if (minutes > maxMinutes) throw invalidInput('/endsAt', `must be at most ${maxMinutes} minutes after startsAt`);
  return item;
}

async function windowOf(store: BrownoutOptions['store'], id: number): Promise<BrownoutWindow> {
  const window = await store.get(id);
  if (!window) throw new DomainError('BROWNOUT_NOT_FOUND', `No brownout window has the id ${id}.`);
  return window;
}

function overlapping(other: BrownoutWindow): DomainError {
  return new DomainError(
    'BROWNOUT_CONFLICT',
    `Brownout ${other.id} of ${other.item} (${other.startsAt.toISOString()} to ${other.endsAt.toISOString()}) overlaps this window.`,
  );
}

/** The refusal naming the first blocked item and every blocked one. */
function refusalOf(
  blocked: Array<{ item: RegistryItem; window: BrownoutWindow }>,
  at: Date,
): BrownoutRefusal | undefined {
  const [first] = blocked;
  if (!first) return undefined;
  const { item, window } = first;
  return {
    window,
    item,
    blocked: blocked.map((entry) => entry.item),
    retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt.getTime() - at.getTime()) / 1000)),
    error: new DomainError(
      'BROWNOUT',
      `${item.name} (${item.id}) is deprecated` +
        (item.sunset ? ` and goes away on ${item.sunset}` : '') +
        `; it is blocked during an announced brownout until ${window.endsAt.toISOString()}. ` +
        `Move off it: ${item.link}`,
    ),
  };
}

/** The brownout service. */
export type BrownoutService = ReturnType<typeof createBrownoutService>;
