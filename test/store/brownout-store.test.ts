/**
 * Brownout windows in the database (PGlite by default, PostgreSQL with TEST_DATABASE_URL): what every
 * instance relies on when it reloads the windows. Overlapping windows of one item are refused, also while
 * another instance schedules one at that moment (PostgreSQL; PGlite has one session); a cancel keeps the
 * window (and its first cancel time and note); the list filters.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrownoutStore, NewBrownout } from '../../src/core/ports/index.js';
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
  });

  it('waits for another instance scheduling the same item, and then sees its window', async () => {
    // Another instance holds the item's lock and has inserted an overlapping window, not yet committed.
    // Without the lock, the schedule below would not see that row and would store a second window.
    let committed = () => {};
    const commit = new Promise<void>((resolve) => {
      committed = resolve;
    });
    let inserted = () => {};
    const holding = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const other = database.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['brownout:rest.e']);
      await tx.query(
        `INSERT INTO brownouts (item, starts_at, ends_at, scheduled_at)
         VALUES ('rest.e', '2026-12-11T10:00:00Z', '2026-12-11T10:30:00Z', '2026-11-25T00:00:00Z')`,
      );
      inserted();
      await commit;
    });
    await holding;
    const racing = store.schedule(window('rest.e', '2026-12-11T10:15:00Z', '2026-12-11T10:45:00Z'));
    await sleep(200);
    committed();
    await other;
    expect(await racing).toHaveProperty('overlaps');
  });

  it('keeps a cancelled window with its first cancel time and note, and lists by item and end', async () => {
    const { window: stored } = (await store.schedule(
      window('rest.d', '2026-12-12T10:00:00Z', '2026-12-12T10:30:00Z'),
    )) as {
      window: { id: number };
    };
    const cancelled = await store.cancel(stored.id, new Date('2026-11-26T00:00:00Z'), null, 'no longer deprecated');
    const again = await store.cancel(stored.id, new Date('2026-11-27T00:00:00Z'), 2);
    expect(cancelled?.cancelledAt?.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(again?.cancelledAt?.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(again?.cancelNote).toBe('no longer deprecated');
    expect(await store.cancel(999_999, new Date(), 1)).toBeUndefined();
    const listed = await store.list({ item: 'rest.d', endedAfter: new Date('2026-12-01T00:00:00Z') });
    expect(listed.map((entry) => entry.id)).toEqual([stored.id]);
    expect(await store.list({ item: 'rest.d', endedAfter: new Date('2026-12-13T00:00:00Z') })).toEqual([]);
  });
});
