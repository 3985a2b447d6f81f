/**
 * Migration 0018 cuts rotation chains left by earlier releases to one live predecessor per key: a chain
 * of four keys rotated within their overlaps had four working secrets; after it, the newest and the one
 * it replaced. Runs on PGlite, and on PostgreSQL 15 with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/core/keys/key-check.js';
import { migrate } from '../../src/store/migrate.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

const MIGRATION = '0018_one_live_predecessor';
let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase();
  await database.db.query('DELETE FROM schema_migrations WHERE version = $1', [MIGRATION]);
});
afterAll(() => database?.close());

describe(`migration ${MIGRATION}`, () => {
  it('ends every key two or more rotations back, and keeps the newest key and its predecessor', async () => {
    const user = await database.store.users.insert({
      name: 'Chain Owner',
      email: 'chain@example.com',
      phone: null,
      address: null,
      nickname: null,
      marketingAgreed: false,
    });
    if (typeof user === 'string') throw new Error('user not created');
    // As an earlier release left it: each key replaced by the next, every one still in its overlap.
    const ids: number[] = [];
    for (const secret of ['oak_chain-1', 'oak_chain-2', 'oak_chain-3', 'oak_chain-4']) {
      const rows = await database.db.query<{ id: number }>(
        `INSERT INTO api_keys (user_id, role, key_hash, scopes, expires_at)
         VALUES ($1, 'customer', $2, '{orders:read}', now() + interval '6 days') RETURNING id`,
        [user.id, hashKey(secret)],
      );
      ids.push(Number(rows[0]?.id));
    }
    for (let index = 0; index < 3; index++) {
      await database.db.query('UPDATE api_keys SET replaced_by = $2 WHERE id = $1', [ids[index], ids[index + 1]]);
    }

    expect(await migrate(database.db)).toEqual([MIGRATION]);

    const rows = await database.db.query<{ id: number; live: boolean }>(
      'SELECT id, expires_at > now() AS live FROM api_keys WHERE id = ANY($1) ORDER BY id',
      [ids],
    );
    expect(rows.map((row) => row.live)).toEqual([false, false, true, true]);
  });
});
