/**
 * The outbox's fan-out: an event is queued for an endpoint only while the key that registered it
 * works and holds the scope the event needs (`readScopeOf`: `order.*` needs `orders:read`); an endpoint
 * registered without a key follows its owner's role alone. Endpoints registered before the registration
 * check existed (a key holding only `webhooks:write`) are caught here. PGlite, and PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/core/keys/key-check.js';
import { sqlOutbox, writeEvents } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { storeEndpoint, storeUser } from '../support/fixtures.js';

let database: TestDatabase;
let userId: number;
beforeAll(async () => {
  database = await openTestDatabase();
  userId = await storeUser(database.store, 'Fan');
});
afterAll(() => database?.close());

/** A customer key with these scopes, revoked or expired as asked; its id. */
async function key(name: string, scopes: string[] | null, state: 'working' | 'revoked' | 'expired' = 'working') {
  const rows = await database.db.query<{ id: number }>(
    `INSERT INTO api_keys (user_id, role, key_hash, scopes, revoked_at, expires_at)
     VALUES ($1, 'customer', $2, $3, $4, $5) RETURNING id`,
    [
      userId,
      hashKey(`oak_${name}`),
      scopes,
      state === 'revoked' ? new Date() : null,
      state === 'expired' ? new Date(Date.now() - 1000) : null,
    ],
  );
  return Number(rows[0]?.id);
}

const endpoint = (name: string, apiKeyId: number | null, events: string[]) =>
  storeEndpoint(database.store, {
    userId,
    apiKeyId,
    allOwners: false,
    url: `https://hooks.example.com/${name}`,
    events: events as never,
  });

describe('the fan-out of an event to webhook endpoints', () => {
  it('queues it only for endpoints whose key works and may read what it carries', async () => {
    const endpoints = {
      working: await endpoint('working', await key('working', ['orders:read', 'webhooks:write']), ['order.created']),
      roleDefault: await endpoint('role-default', await key('role-default', null), ['order.created']),
      noKey: await endpoint('no-key', null, ['order.created']),
      narrow: await endpoint('narrow', await key('narrow', ['webhooks:write']), ['order.created']),
      revoked: await endpoint('revoked', await key('revoked', ['orders:read'], 'revoked'), ['order.created']),
      expired: await endpoint('expired', await key('expired', ['orders:read'], 'expired'), ['order.created']),
      notice: await endpoint('notice', await key('notice', ['webhooks:write']), ['deprecation.announced']),
    };
    const { db } = database;
    const [order, notice] = await db.transaction((tx) =>
      writeEvents(tx, sqlOutbox(db).wakeups, [
        { type: 'order.created', ownerUserId: userId, subject: 'order:1', data: { object: { id: 1 } } },
        { type: 'deprecation.announced', ownerUserId: userId, subject: 'item:x', data: { object: {} } },
      ]),
    );
    const queued = await db.query<{ endpoint_id: number; event_id: string }>(
      'SELECT endpoint_id, event_id FROM webhook_deliveries ORDER BY endpoint_id',
    );
    const named = (eventId: string | undefined) =>
      queued
        .filter((row) => row.event_id === eventId)
        .map((row) => Object.entries(endpoints).find(([, e]) => e.id === Number(row.endpoint_id))?.[0]);
    expect(named(order?.id)).toEqual(['working', 'roleDefault', 'noKey']);
    expect(named(notice?.id)).toEqual(['notice']);
  });
});
