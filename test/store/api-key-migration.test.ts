/**
 * Migration 0009 keeps existing keys working: a database as the previous release left it (keys without
 * label, expiry or scopes) is migrated, and its keys authenticate with every scope their role allows, no
 * label and no expiry. A key the previous release inserts during a rolling deploy (no scopes) is read the
 * same way. Runs on PGlite, and on PostgreSQL 15 with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/core/keys/key-check.js';
import { scopesOfRole } from '../../src/core/shared/scope-catalog.js';
import { migrate } from '../../src/store/migrate.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';

const MIGRATION = '0009_api_key_management';
const person = (name: string) => ({
  name,
  email: `${name.toLowerCase().replace(' ', '-')}@example.com`,
  phone: null,
  address: null,
  nickname: null,
  marketingAgreed: false,
});
let database: TestDatabase;
let core: TestCore;

/** Inserts a key the way the previous release did: user, role and hash only. */
async function previousReleaseKey(userId: number, role: 'admin' | 'customer', secret: string): Promise<number> {
  const rows = await database.db.query<{ id: number }>(
    'INSERT INTO api_keys (user_id, role, key_hash) VALUES ($1, $2, $3) RETURNING id',
    [userId, role, hashKey(secret)],
  );
  return Number(rows[0]?.id);
}

beforeAll(async () => {
  database = await openTestDatabase();
  // Back to the schema of the previous release.
  for (const column of ['replaced_by', 'last_used_at', 'scopes', 'expires_at', 'label']) {
    await database.db.query(`ALTER TABLE api_keys DROP COLUMN ${column}`);
  }
  await database.db.query('DELETE FROM schema_migrations WHERE version = $1', [MIGRATION]);
  core = await testCore(database.store);
});
afterAll(() => database?.close());

/** The scopes a role allowed when this migration was written (webhooks:write came to customers later, for new keys only). */
const scopesThen = (role: 'admin' | 'customer') =>
  role === 'admin' ? scopesOfRole(role) : scopesOfRole(role).filter((scope) => scope !== 'webhooks:write');

describe(`migration ${MIGRATION}`, () => {
  it('gives existing keys the scopes of their role, no label and no expiry, and they keep working', async () => {
    const admin = await database.store.users.insert(person('Old Admin'));
    const customer = await database.store.users.insert(person('Old Customer'));
    if (typeof admin === 'string' || typeof customer === 'string') throw new Error('users not created');
    const adminKeyId = await previousReleaseKey(admin.id, 'admin', 'oak_old-admin-secret');
    const customerKeyId = await previousReleaseKey(customer.id, 'customer', 'oak_old-customer-secret');

    expect(await migrate(database.db)).toEqual([MIGRATION]);

    for (const [id, role, secret] of [
      [adminKeyId, 'admin', 'oak_old-admin-secret'],
      [customerKeyId, 'customer', 'oak_old-customer-secret'],
    ] as const) {
      const caller = await core.apiKeys.authenticate(secret);
      expect(caller).toMatchObject({ apiKeyId: id, role, scopes: scopesThen(role) });
      expect(await database.store.apiKeys.get(id)).toMatchObject({
        label: null,
        expiresAt: null,
        replacedBy: null,
        scopes: scopesThen(role),
      });
    }
    const stored = await database.db.query<{ scopes: string[] }>('SELECT scopes FROM api_keys WHERE id = $1', [
      customerKeyId,
    ]);
    expect(stored[0]?.scopes).toEqual(scopesThen('customer'));
  });

  it('reads a key inserted by the previous release after the migration (no scopes) as its role allows', async () => {
    const user = await database.store.users.insert(person('Rolling'));
    if (typeof user === 'string') throw new Error('user not created');
    await previousReleaseKey(user.id, 'customer', 'oak_rolling-deploy-secret');
    const caller = await core.apiKeys.authenticate('oak_rolling-deploy-secret');
    expect(caller.scopes).toEqual(scopesOfRole('customer'));
  });
});
