/**
 * The storage port of deprecation usage: per-caller daily counts written in additive batches, the
 * reads of the report, and the notices sent to callers.
 */
import type { Notified } from './brownouts.js';

/**
 * What a counted use was: the item itself, (for a watched field) its replacement, or an attempt refused
 * during a brownout window.
 */
export type UsageKind = 'use' | 'replacement' | 'brownout';

/** A caller as usage counts it: the issued key (0 = anonymous) and the client name/version. */
export interface UsageCaller {
  apiKeyId: number;
  client: string;
}

/** Uses of one item by one caller on one UTC day. */
export interface UsageCount extends UsageCaller {
  item: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  kind: UsageKind;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
}

/** A usage row joined with the key's owner, for the callers report. */
export interface CallerUsage extends UsageCount {
  ownerName: string | null;
  ownerEmail: string | null;
  /** The key's label (null when unnamed, and for the anonymous caller). */
  label: string | null;
}

/** Totals of one item and kind since a day. */
export interface UsageTotal {
  item: string;
  kind: UsageKind;
  day: string;
  count: number;
}

/** A notice sent to the owner of a key about an item. */
export interface Notice {
  item: string;
  apiKeyId: number;
  channel: string;
  note: string | null;
  notifiedAt: Date;
  /** The `deprecation.announced` event it was sent as (null: recorded before notices were sent as events). */
  eventId: string | null;
}

/** A notice to record: the server sends it and fills in its event. */
export type NewNotice = Omit<Notice, 'eventId'>;

/** A notice as recorded, with the id of its record (the order it was recorded in). */
export interface RecordedNotice extends Notice {
  id: number;
}

/** Uses of one item on one UTC day that a recorder dropped because its buffer was full. */
export interface UsageDrop {
  item: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  count: number;
}

/** What an instance notes with a flush, besides its counts. */
export interface UsageFlush {
  instance: string;
  at: Date;
  /**
   * The UTC days whose usage this flush completes for the instance: from the day of its previous flush (or of
   * its registration) to the day of `at`. Default: the day of `at`.
   */
  days?: string[];
  /** Uses dropped since the previous flush, per item and day. */
  dropped?: UsageDrop[];
}

/** How completely usage was measured on one UTC day, for one item. */
export interface DayCoverage {
  day: string;
  /** Instances that served that day: registered when they started, or flushed for it. */
  served: number;
  /** Of those, the ones that flushed usage for that day at least once. */
  flushed: number;
  /** Uses of the item dropped that day because an instance's buffer was full. */
  dropped: number;
}

/** Usage in the database. */
export interface UsagePort {
  /**
   * Adds counts (count += …, first_seen = least, last_seen = greatest), and in the same transaction the
   * dropped uses and the instance's heartbeat for each day the flush completes.
   */
  add(counts: UsageCount[], flush: UsageFlush): Promise<void>;
  /** Notes that an instance serves from `at` on: its heartbeat for that day, not flushed yet. */
  register(heartbeat: { instance: string; at: Date }): Promise<void>;
  /** Daily totals per item and kind from `sinceDay` on. */
  totals(sinceDay: string): Promise<UsageTotal[]>;
  /** Every row of one item from `sinceDay` on, with the key owner's name and email. */
  callers(item: string, sinceDay: string): Promise<CallerUsage[]>;
  /** Every row of one key from `sinceDay` on (any item), in the same form as `callers`. */
  keyUsage(apiKeyId: number, sinceDay: string): Promise<CallerUsage[]>;
  /**
   * Per day from `sinceDay` on: the instances that served and that flushed, and the item's dropped uses (a day
   * with no instance and no drop is absent).
   */
  coverage(item: string, sinceDay: string): Promise<DayCoverage[]>;
  /**
   * Records notices of one item and sends them: in the same transaction one `deprecation.announced` event
   * (carrying `announcement`) per distinct owner of the keys. The key ids must exist (unknown ones are
   * returned, nothing recorded then).
   */
  addNotices(
    notices: NewNotice[],
    recordedBy: number,
    announcement: Record<string, unknown>,
  ): Promise<{ unknownKeys: number[]; recorded: Notice[]; notified: Notified[] }>;
  /** The notices of one item, oldest first (recording order breaks ties), each with its record's id. */
  notices(item: string): Promise<RecordedNotice[]>;
}
