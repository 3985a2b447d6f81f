/**
 * The usage export of one item, the evidence a removal needs (contracts/retirements.yaml):
 *
 *   npm run usage:export -- <item> [--days 30] [--to YYYY-MM-DD] [--out contracts/evidence/<item>.json]
 *
 * Day by day over the last `--days` days up to `--to` (default today, included): how completely the day was
 * measured (the instances that served it and those that flushed for it, the uses dropped by a full buffer:
 * `measured` only when every instance flushed and none dropped a use), the uses, replacement uses and
 * brownout hits, and the callers still using the item. A measured day can still miss what a crashed instance
 * had buffered since its last flush, at most USAGE_FLUSH_MS of its traffic (see src/core/usage-export.ts).
 * Without `--out` it prints the JSON. From the database the server uses (see src/cli/cli-support.ts); in a
 * production install: `node dist/src/cli/usage-export.js <item>`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isRealDate } from '../core/deprecation-registry.js';
import { createDeprecationService } from '../core/deprecations.js';
import { exportUsage } from '../core/usage-export.js';
import { usageStore } from '../store/usage-store.js';
import { OPERATOR, readRegistry, runCommand, withDatabase } from './cli-support.js';

runCommand(async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      days: { type: 'string', default: '30' },
      to: { type: 'string' },
      out: { type: 'string' },
      registry: { type: 'string' },
    },
  });
  const item = positionals[0];
  const days = Number(values.days);
  if (!item) throw new Error('usage: npm run usage:export -- <item> [--days 30] [--to YYYY-MM-DD] [--out <file>]');
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new Error('--days takes a whole number, 1 to 366');
  if (values.to !== undefined && !isRealDate(values.to)) throw new Error('--to takes a day, YYYY-MM-DD');
  const now = values.to ? () => new Date(`${values.to}T23:59:59.999Z`) : () => new Date();
  const registry = readRegistry(values.registry);
  const evidence = await withDatabase(async (db) => {
    const usage = usageStore(db);
    const report = createDeprecationService({ registry, usage, now });
    return exportUsage({ report, usage, now }, OPERATOR, item, days);
  });
  const text = `${JSON.stringify(evidence, null, 2)}\n`;
  if (!values.out) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
  writeFileSync(values.out, text);
  console.log(
    `${values.out}: ${evidence.item}, ${evidence.from} to ${evidence.to}, ${evidence.daysMeasured} days measured, ` +
      `${evidence.quietDays} quiet days at the end, ${evidence.totals.uses} uses, ${evidence.totals.brownoutHits} brownout hits`,
  );
});
