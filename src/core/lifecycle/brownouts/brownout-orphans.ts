/**
 * Undoing a deprecation (docs/decisions.md §7): once the mark is removed from the contract, the item is
 * watched again (or nothing), and its brownout windows that have not ended are orphans. Each instance
 * cancels them against its own registry, as no user, with a note that says why. It cancels only windows
 * scheduled up to its start: one scheduled later came through an instance whose registry deprecates the
 * item (during a rollout an instance of the other release may still run), and is not this one's to undo.
 */
import type { BrownoutStore, BrownoutWindow } from '../../ports/index.js';

/** The note of a window cancelled because its item is no longer deprecated. */
export const orphanNote = (item: string) => `${item} is no longer deprecated in the contract; window cancelled`;

/**
 * Cancels every window that has not ended and is not cancelled, whose item is not in `deprecated`,
 * scheduled no later than when the retirer was made; returns the windows it cancelled. Those windows are a
 * fixed set, so once a call has cancelled them all the later calls do nothing (no query); a call that
 * failed leaves the work to the next. A store keeps the first cancel of a window, so instances that do
 * this at once agree.
 */
export function orphanRetirer(store: BrownoutStore, deprecated: ReadonlySet<string>, now: () => Date) {
  const startedAt = now();
  let done = false;
  return async (): Promise<BrownoutWindow[]> => {
    if (done) return [];
    const at = now();
    const orphans = (await store.list({ endedAfter: at })).filter(
      (window) => !window.cancelledAt && !deprecated.has(window.item) && window.scheduledAt <= startedAt,
    );
    const cancelled: BrownoutWindow[] = [];
    for (const window of orphans) {
      const stored = await store.cancel(window.id, at, null, orphanNote(window.item));
      if (stored) cancelled.push(stored);
    }
    done = true;
    return cancelled;
  };
}
