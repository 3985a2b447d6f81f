/**
 * The deprecation report on the command line, from the database the server uses (`DATABASE_URL` and
 * `DATABASE_SCHEMA`, or the embedded database in `DATA_DIR`, default ./data — stop the server first, the
 * embedded database is one process per directory):
 *
 *   npm run usage:report                       every item: state, sunset, uses in 1/7/30 days
 *   npm run usage:report -- <item> [--days N]  the item's callers: key, owner, email, clients, counts, notified
 *   … --csv                                    the same as CSV
 *
 * Compiled with the server, so a production install (no dev dependencies) runs it as
 * `node dist/src/cli/usage-report.js <item>`.
 */

import { createDeprecationService } from '../core/lifecycle/deprecations.js';
import { usageStore } from '../store/usage-store.js';
import { OPERATOR, readRegistry, windowDays, withDatabase } from './cli-support.js';

const args = process.argv.slice(2);
const csv = args.includes('--csv');
const daysFlag = args.indexOf('--days');
const daysText = daysFlag >= 0 ? args[daysFlag + 1] : '30';
const registryFlag = args.indexOf('--registry');
const flagValues = new Set([daysFlag, registryFlag].filter((flag) => flag >= 0).map((flag) => flag + 1));
const item = args.find((arg, index) => !arg.startsWith('--') && !flagValues.has(index));

function print(header: string[], rows: Array<Array<string | number>>): void {
  if (csv) {
    const cell = (value: string | number) => {
      const text = String(value);
      return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    };
    for (const row of [header, ...rows]) console.log(row.map(cell).join(','));
    return;
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (row: Array<string | number>) =>
    row
      .map((value, column) => String(value).padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
}

async function main(): Promise<void> {
  const days = windowDays(daysText);
  const registry = readRegistry(registryFlag >= 0 ? args[registryFlag + 1] : undefined);
  await withDatabase(async (db) => {
    const report = createDeprecationService({ registry, usage: usageStore(db) });
    const operator = OPERATOR;
    if (!item) {
      const items = await report.list(operator);
      print(
        [
          'item',
          'state',
          'sunset',
          'uses 1d',
          'uses 7d',
          'uses 30d',
          'replacement 30d',
          'brownout hits 30d',
          'brownouts',
        ],
        items.map((entry) => [
          entry.item.id,
          entry.state,
          entry.item.sunset ?? '',
          entry.uses.last1Days,
          entry.uses.last7Days,
          entry.uses.last30Days,
          entry.replacementUses.last30Days,
          entry.brownoutHits.last30Days,
          entry.brownouts.map((window) => `${window.startsAt.toISOString()}/${window.endsAt.toISOString()}`).join(' '),
        ]),
      );
      return;
    }
    const { callers } = await report.callers(operator, item, days);
    print(
      [
        'apiKeyId',
        'owner',
        'email',
        'clients',
        'uses',
        'replacementUses',
        'brownoutHits',
        'surfacedByBrownout',
        'firstSeen',
        'lastSeen',
        'notified',
      ],
      callers.map((caller) => [
        caller.apiKeyId,
        caller.ownerName ?? (caller.apiKeyId === 0 ? '(anonymous)' : ''),
        caller.ownerEmail ?? '',
        caller.clients.map((client) => client.client).join(' '),
        caller.uses,
        caller.replacementUses,
        caller.brownoutHits,
        caller.surfacedByBrownout ? 'yes' : 'no',
        caller.firstSeen.toISOString(),
        caller.lastSeen.toISOString(),
        caller.notices.length > 0 ? `yes (${caller.notices.map((notice) => notice.channel).join(', ')})` : 'no',
      ]),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
