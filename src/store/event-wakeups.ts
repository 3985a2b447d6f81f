import type { Database, Transaction } from './database.js';

/** The PostgreSQL notification channel of committed events (scoped per schema by `Database.channel`). */
export const EVENTS_CHANNEL = 'order_api_events';

/**
 * How a transaction that wrote events wakes the event feed of every instance. A wake-up only says "look":
 * it carries no event, the feeds read the committed rows from the table, so a lost one costs time (until
 * the feed's poll), never an event.
 */
export interface EventWakeups {
  /**
   * The channel the statement that writes events notifies itself (PostgreSQL NOTIFY, sent when its
   * transaction commits: `eventWriteSql`); undefined when wake-ups travel after the commit (`announce`).
   */
  readonly notifyChannel: string | undefined;
  /**
   * Called in the transaction (or by the single statement) that wrote events: every feed is woken once it
   * commits, never if it rolls back.
   */
  announce(tx: Pick<Transaction, 'afterCommit'>): Promise<void>;
  /**
   * Calls `onWake` on every wake-up, and after a lost connection came back (wake-ups may have been missed).
   * Resolves once listening (or, for Redis, once asked to: it may be away), to a stop function.
   */
  listen(onWake: () => void): Promise<() => Promise<void>>;
  /** What is degraded while wake-ups cannot travel (the feed then waits for its poll); undefined when fine. */
  degraded(): string | undefined;
  /** Closes the connections of the wake-ups (after the last write of the instance). */
  close(): Promise<void>;
}

/**
 * Wake-ups by PostgreSQL `NOTIFY` in the writing transaction (delivered when it commits, never when it
 * rolls back) and one `LISTEN` connection per process (on PGlite, in-process notifications).
 */
export function notifyWakeups(db: Pick<Database, 'listen' | 'channel'>): EventWakeups {
  const channel = db.channel(EVENTS_CHANNEL);
  return {
    // The writing statement sends `pg_notify` itself; PostgreSQL folds identical notifications of one
    // transaction into one.
    notifyChannel: channel,
    announce: async () => undefined,
    listen: (onWake) => db.listen(channel, () => onWake()),
    degraded: () => undefined,
    close: async () => undefined,
  };
}
