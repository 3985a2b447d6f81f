/** Brownout windows in the database: scheduled by admins, read by every instance. */
import type { ComposeMail } from './mail.js';

/** One window: while it runs, requests that use `item` are blocked. */
export interface BrownoutWindow {
  id: number;
  /** A deprecated item of the registry. */
  item: string;
  startsAt: Date;
  endsAt: Date;
  note: string | null;
  scheduledAt: Date;
  scheduledBy: number | null;
  cancelledAt: Date | null;
  /** Why it was cancelled, when the server cancelled it (its item is no longer deprecated); else null. */
  cancelNote: string | null;
}

/** What an admin schedules: a window before it has an id, never cancelled. */
export type NewBrownout = Omit<BrownoutWindow, 'id' | 'cancelledAt' | 'cancelNote'>;

/** The storage of windows. */
export interface BrownoutStore {
  /**
   * Stores the window unless a window of the same item that is not cancelled overlaps it (checked and
   * written under one lock per item, so two instances cannot both store overlapping windows), and in the
   * same transaction one `brownout.scheduled` event per user whose keys used the item in
   * the 30 days up to `scheduledAt` (`noticeSinceDay`), with its webhook deliveries and (with `mail`) one
   * e-mail per such user with an address.
   */
  schedule(window: NewBrownout, mail?: ComposeMail): Promise<{ window: BrownoutWindow } | { overlaps: BrownoutWindow }>;
  get(id: number): Promise<BrownoutWindow | undefined>;
  /** Windows of one item (or all) that end after `endedAfter`, cancelled ones included, by start. */
  list(filter: { item?: string; endedAfter: Date }): Promise<BrownoutWindow[]>;
  /**
   * Marks a window cancelled (once; a second cancel keeps the first time, user and note). `by` is the
   * cancelling user, null when the server itself cancels (with a `note` saying why).
   */
  cancel(id: number, at: Date, by: number | null, note?: string): Promise<BrownoutWindow | undefined>;
}
