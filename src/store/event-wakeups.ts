import type { EventWakeups } from '../core/ports/index.js';
import type { Database } from './database.js';

export type { EventWakeups } from '../core/ports/index.js';

/** The PostgreSQL notification channel of committed events (scoped per schema by `Database.channel`). */
export const EVENTS_CHANNEL = 'order_api_events';

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
