/**
 * Brownout windows in the database (PGlite by default, PostgreSQL with TEST_DATABASE_URL): what every
 * instance relies on when it reloads the windows. Overlapping windows of one item are refused even when
 * two are scheduled at once; a cancel keeps the window (and its first cancel time); the list filters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrownoutStore, NewBrownout } from '../../src/core/ports.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let store: BrownoutStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = database.store.brownouts;
});
afterAll(() => database?.close());

const window = (item: string, start: string, end: string): NewBrownout => ({
  item,
  startsAt: new Date(start),
  endsAt: new Date(end),
  note: null,
  scheduledAt: new Date('2026-11-25T00:00:00Z'),
  scheduledBy: 1,
});

describe('the brownout store', () => {
  it('stores a window and refuses an overlapping one of the same item, also when both arrive at once', async () => {
    const first = await store.schedule(window('rest.a', '2026-12-10T10:00:00Z', '2026-12-10T10:30:00Z'));
    expect(first).toMatchObject({ window: { item: 'rest.a', cancelledAt: null } });
    const overlap = await store.schedule(window('rest.a', '2026-12-10T10:29:00Z', '2026-12-10T11:00:00Z'));
    expect(overlap).toMatchObject({ overlaps: { id: (first as { window: { id: number } }).window.id } });
    // Back to back is not an overlap (the end is exclusive); another item never overlaps.
    expect(await store.schedule(window('rest.a', '2026-12-10T10:30:00Z', '2026-12-10T11:00:00Z'))).toHaveProperty(
      'window',
    );
    expect(await store.schedule(window('rest.b', '2026-12-10T10:00:00Z', '2026-12-10T10:30:00Z'))).toHaveProperty(
      'window',
    );
    const racing = await Promise.all(
      [0, 1, 2].map(() => store.schedule(window('rest.c', '2026-12-11T10:00:00Z', '2026-12-11T10:30:00Z'))),
    );
    expect(racing.filter((outcome) => 'window' in outcome)).toHaveLength(1);
  });

  it('keeps a cancelled window with its first cancel time, and lists by item and end', async () => {
    const { window: stored } = (await store.schedule(
      window('rest.d', '2026-12-12T10:00:00Z', '2026-12-12T10:30:00Z'),
    )) as {
      window: { id: number };
    };
    const cancelled = await store.cancel(stored.id, new Date('2026-11-26T00:00:00Z'), 1);
    const again = await store.cancel(stored.id, new Date('2026-11-27T00:00:00Z'), 2);
    expect(cancelled?.cancelledAt?.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(again?.cancelledAt?.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(await store.cancel(999_999, new Date(), 1)).toBeUndefined();
    const listed = await store.list({ item: 'rest.d', endedAfter: new Date('2026-12-01T00:00:00Z') });
    expect(listed.map((entry) => entry.id)).toEqual([stored.id]);
    expect(await store.list({ item: 'rest.d', endedAfter: new Date('2026-12-13T00:00:00Z') })).toEqual([]);
  });
});
