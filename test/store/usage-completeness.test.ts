/**
 * No blind spots in deprecation usage, over the real store (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * the instances' heartbeats and the dropped uses decide which days are measured, the usage export marks
 * them, and the retirement gate counts only measured days of zero use as quiet. An instance that served a
 * day and never flushed for it leaves the day unmeasured; one killed after it flushed still counts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkRetirement, historyOf } from '@order-api/contract-gate';
import type { DeprecationRegistry, RegistryItem } from '@order-api/contract-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeprecationService } from '../../src/core/lifecycle/deprecations.js';
import { exportUsage, signExport } from '../../src/core/lifecycle/usage-export.js';
import type { UsagePort } from '../../src/core/ports/usage.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { evidenceKeyPair, releaseOfRegistry } from '../support/evidence.js';
import { makeAdmin } from '../support/fixtures.js';

const item = (id: string): RegistryItem => ({
  id,
  protocol: 'rest',
  status: 'deprecated',
  name: id,
  deprecated: '2026-06-01',
  sunset: '2026-10-01',
  reason: null,
  replacement: null,
  link: `/docs/deprecations#${id}`,
  match: { on: 'operation', operationId: id.slice(5) },
});
const registry: DeprecationRegistry = { items: [item('rest.dropped'), item('rest.quiet')] };
const today = new Date('2026-11-23T12:00:00Z');
const at = (day: string, time = '10:00:00') => new Date(`${day}T${time}Z`);
const days = ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'];

// The deprecations were released on 2026-06-01, 122 days before their sunset.
const key = evidenceKeyPair();
const history = historyOf([releaseOfRegistry(registry, { date: '2026-06-01', publicPem: key.publicPem })]);

let database: TestDatabase;
let usage: UsagePort;
let scratch: string;

beforeAll(async () => {
  database = await openTestDatabase();
  usage = database.store.usage;
  scratch = mkdtempSync(path.join(tmpdir(), 'usage-completeness-'));
  // Instance a serves every day and flushes; its first flush after midnight also completes the day before.
  await usage.register({ instance: 'a', at: at('2026-11-14', '08:00:00') });
  for (const day of [...days, '2026-11-21', '2026-11-22', '2026-11-23'])
    await usage.add([], { instance: 'a', at: at(day) });
  await usage.add([], { instance: 'a', at: at('2026-11-24', '00:00:03'), days: ['2026-11-23', '2026-11-24'] });
  // Instance b registers on the 20th and dies before its first flush.
  await usage.register({ instance: 'b', at: at('2026-11-20', '09:00:00') });
  // Instance c registers on the 21st, flushes once and is killed: it flushed, so the day counts.
  await usage.register({ instance: 'c', at: at('2026-11-21', '09:00:00') });
  await usage.add([], { instance: 'c', at: at('2026-11-21', '09:00:05') });
  // A 30-minute brownout of rest.quiet was held on the 16th.
  await database.store.brownouts.schedule({
    item: 'rest.quiet',
    startsAt: at('2026-11-16', '10:00:00'),
    endsAt: at('2026-11-16', '10:30:00'),
    note: null,
    scheduledAt: at('2026-11-01'),
    scheduledBy: null,
  });
  // On the 22nd a's buffer was full: uses of rest.dropped were dropped, in two flushes.
  const drop = { item: 'rest.dropped', day: '2026-11-22', count: 2 };
  await usage.add([], { instance: 'a', at: at('2026-11-22', '10:00:05'), dropped: [drop] });
  await usage.add([], { instance: 'a', at: at('2026-11-22', '10:00:10'), dropped: [{ ...drop, count: 1 }] });
});
afterAll(async () => {
  await database?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The export of `id` over the last 11 days up to today (from the 13th, before any instance), for the gate. */
async function exported(id: string) {
  const report = createDeprecationService({ registry, usage, now: () => today });
  const sources = { report, usage, brownouts: database.store.brownouts, now: () => today };
  const evidence = signExport(await exportUsage(sources, await makeAdmin(database.store), id, 11), key.privateKey);
  const file = path.join(scratch, `${id}.json`);
  writeFileSync(file, JSON.stringify(evidence));
  return { evidence, file };
}

const gate = (id: string, file: string, quietDays: number) =>
  checkRetirement(
    { contract: 'openapi', item: id, registryItem: id, evidence: file, quietDays },
    { root: scratch, baseRegistry: registry, today: '2026-11-24', history },
  );

describe('usage completeness', () => {
  it('counts per day the instances that served and those that flushed, and the dropped uses of an item', async () => {
    const coverage = await usage.coverage('rest.dropped', '2026-11-19');
    expect(coverage).toEqual([
      { day: '2026-11-19', served: 1, flushed: 1, dropped: 0 },
      { day: '2026-11-20', served: 2, flushed: 1, dropped: 0 },
      { day: '2026-11-21', served: 2, flushed: 2, dropped: 0 },
      { day: '2026-11-22', served: 1, flushed: 1, dropped: 3 },
      { day: '2026-11-23', served: 1, flushed: 1, dropped: 0 },
      { day: '2026-11-24', served: 1, flushed: 1, dropped: 0 },
    ]);
    expect((await usage.coverage('rest.quiet', '2026-11-22'))[0]).toEqual({
      day: '2026-11-22',
      served: 1,
      flushed: 1,
      dropped: 0,
    });
  });

  it('keeps the heartbeat of each instance and day: first and last seen, last flush', async () => {
    const rows = await database.db.query<Record<string, unknown>>(
      `SELECT instance, day::text AS day, flushes::int AS flushes, first_seen, last_seen, last_flush_at
         FROM deprecation_recorders WHERE day IN ('2026-11-20', '2026-11-23') ORDER BY day, instance`,
    );
    const time = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
    expect(
      rows.map((row) => [row.instance, row.day, row.flushes, time(row.first_seen), time(row.last_flush_at)]),
    ).toEqual([
      ['a', '2026-11-20', 1, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
      ['b', '2026-11-20', 0, '2026-11-20T09:00:00.000Z', null],
      ['a', '2026-11-23', 2, '2026-11-23T10:00:00.000Z', '2026-11-24T00:00:03.000Z'],
    ]);
    expect(time(rows[2]?.last_seen)).toBe('2026-11-24T00:00:03.000Z');
  });

  it('marks in the export the days an instance never flushed and the days uses were dropped', async () => {
    const { evidence } = await exported('rest.dropped');
    const day = (name: string) => evidence.days.find((entry) => entry.day === name);
    expect(evidence.format).toBe('order-api.usage-export/3');
    expect(day('2026-11-13')).toMatchObject({ instances: 0, measured: false, incomplete: ['no-instance'] });
    expect(day('2026-11-20')).toMatchObject({
      instances: 2,
      flushedInstances: 1,
      measured: false,
      incomplete: ['instance-not-flushed'],
    });
    expect(day('2026-11-21')).toMatchObject({ instances: 2, flushedInstances: 2, measured: true, incomplete: [] });
    expect(day('2026-11-22')).toMatchObject({ droppedUses: 3, measured: false, incomplete: ['uses-dropped'] });
    expect(evidence).toMatchObject({ daysMeasured: 8, quietDays: 1 });
    expect(evidence.measuredDay).toMatch(/at most USAGE_FLUSH_MS/);
  });

  it('lets the gate count a day as quiet only when it was measured completely', async () => {
    const dropped = await exported('rest.dropped');
    expect(gate('rest.dropped', dropped.file, 2)).toEqual({
      allowed: false,
      reason:
        'only 1 quiet days at the end of the evidence, 2 needed (2026-11-22 was not measured completely: ' +
        '3 uses were dropped (buffer full))',
    });
    // rest.quiet lost nothing on the 22nd; the 21st counts although instance c was killed after its flush.
    const quiet = await exported('rest.quiet');
    expect(quiet.evidence.quietDays).toBe(3);
    expect(gate('rest.quiet', quiet.file, 3)).toMatchObject({ allowed: true, quietDays: 3 });
    expect(gate('rest.quiet', quiet.file, 4)).toEqual({
      allowed: false,
      reason:
        'only 3 quiet days at the end of the evidence, 4 needed (2026-11-20 was not measured completely: ' +
        '1 of 2 instances that served it never flushed)',
    });
  });
});
