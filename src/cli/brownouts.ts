/**
 * Brownout windows from a shell, the same rules as `POST /v1/brownouts` (a deprecated item, at least
 * BROWNOUT_NOTICE_DAYS ahead, at most BROWNOUT_MAX_MINUTES long, no overlap):
 *
 *   npm run brownouts -- schedule <item> --start <RFC 3339> --end <RFC 3339> [--note "…"]
 *   npm run brownouts -- list [--item <item>]
 *   npm run brownouts -- cancel <id>
 *
 * Running servers pick a change up within BROWNOUT_REFRESH_MS. From the database the server uses (see
 * src/cli/cli-support.ts); in a production install: `node dist/src/cli/brownouts.js list`. With SMTP_URL set
 * (as the server's), `schedule` queues the notice mails, which a server's mail dispatcher sends.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { type BrownoutWindow, createBrownoutService, windowState } from '../core/lifecycle/brownouts/brownouts.js';
import { createSqlStore } from '../store/sql-store.js';
import { OPERATOR, readRegistry, runCommand, withDatabase } from './cli-support.js';

const USAGE =
  'usage: npm run brownouts -- schedule <item> --start <time> --end <time> [--note …] | list [--item <item>] | cancel <id>';

const line = (window: BrownoutWindow) =>
  [
    String(window.id).padStart(4),
    windowState(window, new Date()).padEnd(9),
    window.startsAt.toISOString(),
    window.endsAt.toISOString(),
    window.item,
    window.note ?? '',
    window.cancelNote ?? '',
  ]
    .join('  ')
    .trimEnd();

function instant(text: string | undefined, flag: string): Date {
  const date = new Date(text ?? '');
  if (!text || Number.isNaN(date.getTime())) throw new Error(`${flag} takes a time, e.g. 2026-12-07T10:00:00Z`);
  return date;
}

runCommand(async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      start: { type: 'string' },
      end: { type: 'string' },
      note: { type: 'string' },
      item: { type: 'string' },
      registry: { type: 'string' },
    },
  });
  const [command, argument] = positionals;
  const config = loadConfig();
  const registry = readRegistry(values.registry);
  await withDatabase(async (db) => {
    const brownouts = createBrownoutService({
      store: createSqlStore(db).brownouts,
      registry,
      noticeDays: config.BROWNOUT_NOTICE_DAYS,
      maxMinutes: config.BROWNOUT_MAX_MINUTES,
      // Queued with the events; a running server's mail dispatcher (or the next one started) sends them.
      mailNotices: config.SMTP_URL !== undefined,
    });
    if (command === 'schedule' && argument) {
      const window = await brownouts.schedule(OPERATOR, {
        item: argument,
        startsAt: instant(values.start, '--start'),
        endsAt: instant(values.end, '--end'),
        ...(values.note ? { note: values.note } : {}),
      });
      console.log(`scheduled and announced:\n${line(window)}`);
    } else if (command === 'list') {
      const windows = await brownouts.list(OPERATOR, values.item ? { item: values.item } : {});
      console.log(windows.length > 0 ? windows.map(line).join('\n') : 'no brownout windows');
    } else if (command === 'cancel' && argument && /^\d+$/.test(argument)) {
      console.log(`cancelled:\n${line(await brownouts.cancel(OPERATOR, Number(argument)))}`);
    } else {
      throw new Error(USAGE);
    }
  });
});
