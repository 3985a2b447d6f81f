import type { DeprecationRegistry, RegistryItem } from '@order-api/contract-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeprecationService } from '../../src/core/lifecycle/deprecations.js';
import type { UsageCount } from '../../src/core/ports/usage.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { codeOf, makeAdmin } from '../support/fixtures.js';

// The report over the real store (PGlite, or PostgreSQL with TEST_DATABASE_URL), with a clock of its own.
const item = (id: string, sunset: string | null): RegistryItem => ({
  id,
  protocol: 'rest',
  status: sunset ? 'deprecated' : 'watched',
  name: id,
  deprecated: sunset ? '2026-10-01' : null,
  sunset,
  reason: null,
  replacement: null,
  link: `/docs/deprecations#${id}`,
  match: { on: 'operation', operationId: id.slice(5) },
});
const registry: DeprecationRegistry = {
  items: [item('rest.watched', null), item('rest.announced', '2026-12-31'), item('rest.passed', '2026-11-23')],
};
const today = new Date('2026-11-23T12:00:00Z');
const use = (itemId: string, day: string, apiKeyId: number, count: number, client = 'shop-web/3.2.1'): UsageCount => ({
  item: itemId,
  day,
  apiKeyId,
  client,
  kind: 'use',
  count,
  firstSeen: new Date(`${day}T08:00:00Z`),
  lastSeen: new Date(`${day}T09:00:00Z`),
});
let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('the deprecation report', () => {
  it('adds the counts of concurrent flushes instead of overwriting them', async () => {
    const batch = [use('rest.watched', '2026-11-23', 0, 1), use('rest.watched', '2026-11-20', 0, 1)];
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        database.store.usage.add(batch, { instance: `i${index % 2}`, at: today }),
      ),
    );
    const totals = await database.store.usage.totals('2026-11-01');
    expect(totals.filter((row) => row.item === 'rest.watched').reduce((sum, row) => sum + row.count, 0)).toBe(16);
  });

  it('gives each item its state and its uses in the last 1, 7 and 30 days', async () => {
    await database.store.usage.add(
      [
        use('rest.announced', '2026-11-23', 0, 2),
        use('rest.announced', '2026-11-17', 0, 3),
        use('rest.announced', '2026-11-16', 0, 5),
        use('rest.announced', '2026-10-25', 0, 7),
        use('rest.announced', '2026-10-24', 0, 11),
      ],
      { instance: 'i0', at: today },
    );
    const report = createDeprecationService({ registry, usage: database.store.usage, now: () => today });
    const admin = await makeAdmin(database.store);
    const items = await report.list(admin);
    expect(items.map((entry) => [entry.item.id, entry.state])).toEqual([
      ['rest.watched', 'watched'],
      ['rest.announced', 'announced'],
      ['rest.passed', 'sunset-passed'],
    ]);
    expect(items[1]?.uses).toEqual({ last1Days: 2, last7Days: 5, last30Days: 17 });
    expect(await codeOf(report.list({ ...admin, role: 'customer' }))).toBe('FORBIDDEN');
  });
});
