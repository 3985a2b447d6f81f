/**
 * Timestamps read from the database (PGlite by default, PostgreSQL with TEST_DATABASE_URL) are the same
 * instants whatever the session's time zone and the value's precision: the server connection parses them
 * with postgres-date 2, and the results must match what PostgreSQL stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

describe('timestamps from the database', () => {
  it.each([
    ['2026-11-25T19:11:20.123Z', '2026-11-25T19:11:20.123Z'],
    ['2026-11-25T19:11:20Z', '2026-11-25T19:11:20.000Z'],
    ['2026-11-25T19:11:20.5+05:30', '2026-11-25T13:41:20.500Z'],
    ['2026-01-01T00:00:00.999-09:00', '2026-01-01T09:00:00.999Z'],
    // Microseconds beyond JavaScript's milliseconds are dropped, not rounded into the next millisecond.
    ['2026-03-04T05:06:07.123999Z', '2026-03-04T05:06:07.123Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
  ])('reads %s as %s', async (stored, expected) => {
    const rows = await database.db.query<{ at: Date }>('SELECT $1::timestamptz AS at', [stored]);
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.at.toISOString()).toBe(expected);
  });

  it('reads the same instant in any session time zone', async () => {
    const rows = await database.db.transaction((tx) =>
      tx
        .query("SET LOCAL TIME ZONE 'Asia/Kolkata'")
        .then(() => tx.query<{ at: Date }>("SELECT '2026-11-25T19:11:20.123Z'::timestamptz AS at")),
    );
    expect(rows[0]?.at.toISOString()).toBe('2026-11-25T19:11:20.123Z');
  });
});
