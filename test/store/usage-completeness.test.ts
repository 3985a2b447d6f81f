/**
 * No blind spots in deprecation usage, over the real store (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * the instances' heartbeats and the dropped uses decide which days are measured. An instance that served a
 * day and never flushed for it leaves the day unmeasured; one killed after it flushed still counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsagePort } from '../../src/core/ports/usage.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

const at = (day: string, time = '10:00:00') => new Date(`${day}T${time}Z`);
const days = ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'];

let database: TestDatabase;
let usage: UsagePort;

beforeAll(async () => {
  database = await openTestDatabase();
  usage = database.store.usage;
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
  // On the 22nd a's buffer was full: uses of rest.dropped were dropped, in two flushes.
  const drop = { item: 'rest.dropped', day: '2026-11-22', count: 2 };
  await usage.add([], { instance: 'a', at: at('2026-11-22', '10:00:05'), dropped: [drop] });
  await usage.add([], { instance: 'a', at: at('2026-11-22', '10:00:10'), dropped: [{ ...drop, count: 1 }] });
});
afterAll(() => database?.close());

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
});
