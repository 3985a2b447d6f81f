/**
 * The storage port of deprecation usage: per-caller daily counts written in additive batches, the
 * reads of the report, and the notices sent to callers.
 */
import type { ComposeMail } from './mail.js';

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

/** One delivery of a notice's event to its owner: to one webhook endpoint, or one e-mail. */
export interface NoticeDelivery {
  channel: 'webhook' | 'email';
  /** The endpoint (`webhook`), else null. */
  endpointId: number | null;
  /** The address (`email`), else null. */
  to: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastAttemptAt: Date | null;
  succeededAt: Date | null;
  /** Why the last attempt failed; null after a success or before the first attempt. */
  error: string | null;
}

/** A notice as recorded, with the id of its record (the order it was recorded in) and its deliveries. */
export interface RecordedNotice extends Notice {
  id: number;
  deliveries: NoticeDelivery[];
}

/** A notice to send and record: to the owners of the named keys, or of every key that used the item recently. */
export interface NoticeRequest {
  item: string;
  /** The keys (distinct), or every key that used the item (or met it in a brownout) from `usedSinceDay` on. */
  keys: number[] | { usedSinceDay: string };
  channel: string;
  note: string | null;
  notifiedAt: Date;
  recordedBy: number;
  /** The `data.object` of the `deprecation.announced` events. */
  announcement: Record<string, unknown>;
  /** Queues one e-mail per notified owner with an address, composed for the owner's event; absent: no mail. */
  mail?: ComposeMail;
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
   * Records one notice per key and sends them, all in one transaction: one `deprecation.announced` event
   * (carrying the announcement) per distinct owner of the keys, its webhook deliveries and its e-mail (with
   * `mail`). Named keys must exist (unknown ones are returned, nothing recorded then).
   */
  addNotices(request: NoticeRequest): Promise<{ unknownKeys: number[]; recorded: RecordedNotice[] }>;
  /** The notices of one item, oldest first (recording order breaks ties), each with its id and deliveries. */
  notices(item: string): Promise<RecordedNotice[]>;
}
