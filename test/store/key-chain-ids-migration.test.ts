/**
 * Migration 0023 names, on every key rotated into before it, the first key of its rotation chain: the chain
 * then shares one rate budget and one bound of open subscriptions. Runs on PGlite, and on PostgreSQL 15 with
 * TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/core/keys/key-check.js';
import { migrate } from '../../src/store/migrate.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { storeUser } from '../support/fixtures.js';

const MIGRATION = '0023_api_key_chains';
let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase();
  // As the release before left the table: no chain column.
  await database.db.query('ALTER TABLE api_keys DROP COLUMN chain_id');
  await database.db.query('DELETE FROM schema_migrations WHERE version = $1', [MIGRATION]);
});
afterAll(() => database?.close());

describe(`migration ${MIGRATION}`, () => {
  it('gives every key of a chain its first key, and leaves keys never rotated into on their own', async () => {
    const userId = await storeUser(database.store, 'Chain Names');
    const ids: number[] = [];
    for (const secret of ['oak_names-1', 'oak_names-2', 'oak_names-3', 'oak_alone']) {
      const rows = await database.db.query<{ id: number }>(
        `INSERT INTO api_keys (user_id, role, key_hash, scopes) VALUES ($1, 'customer', $2, '{orders:read}') RETURNING id`,
        [userId, hashKey(secret)],
      );
      ids.push(Number(rows[0]?.id));
    }
    const [first, second, third, alone] = ids as [number, number, number, number];
    await database.db.query('UPDATE api_keys SET replaced_by = $2 WHERE id = $1', [first, second]);
    await database.db.query('UPDATE api_keys SET replaced_by = $2 WHERE id = $1', [second, third]);

    expect(await migrate(database.db)).toEqual([MIGRATION]);

    const chains = await Promise.all(ids.map(async (id) => (await database.store.apiKeys.get(id))?.chainId));
    expect(chains).toEqual([first, first, first, alone]);
  });
});
