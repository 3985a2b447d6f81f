/**
 * Key management over REST as an operator and a client team meet it: keys listed and paged without their
 * secrets, labels, scopes bounded by the role and by the issuing key, `lastUsedAt`, and rotation with an
 * overlap. Every answer is checked against contracts/openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import type { ProblemBody } from '../support/client.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'api-keys-test-admin-key-0123456789';
const DAY = 24 * 60 * 60 * 1000;

interface KeyJson {
  id: number;
  userId: number;
  label: string | null;
  scopes: string[];
  expiresAt: string | null;
  lastUsedAt: string | null;
  replacedBy: number | null;
  key?: string;
}
interface ListJson {
  items: KeyJson[];
  nextCursor?: string;
  hasNext: boolean;
  totalCount?: number;
}

let server: RunningServer;
let aliceId: number;
let bobId: number;

async function call<T = unknown>(path: string, init: RequestInit & { key?: string } = {}) {
  const { key = ADMIN_KEY, headers, ...rest } = init;
  const seen = await checkedFetch(server.httpUrl, path, {
    ...rest,
    headers: {
      authorization: `Bearer ${key}`,
      ...(rest.body ? { 'content-type': 'application/json' } : {}),
      ...(headers as Record<string, string> | undefined),
    },
  });
  return { status: seen.status, headers: seen.headers, body: seen.body as T };
}

const issue = (body: Record<string, unknown>, key = ADMIN_KEY) =>
  call<KeyJson & ProblemBody & { requiredScope?: string }>('/v1/api-keys', {
    method: 'POST',
    key,
    body: JSON.stringify(body),
  });

const rotate = (id: number, body: Record<string, unknown> | undefined, key = ADMIN_KEY) =>
  call<KeyJson & ProblemBody>(`/v1/api-keys/${id}/rotation`, {
    method: 'POST',
    key,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  const user = async (name: string) =>
    (
      await call<{ id: number }>('/v1/users', {
        method: 'POST',
        body: JSON.stringify({ name, email: `${name.toLowerCase()}@keys.example.com` }),
      })
    ).body.id;
  aliceId = await user('Alice');
  bobId = await user('Bob');
});
afterAll(() => server?.close());

describe('API keys over REST', () => {
  it('issues a key with a label, scopes and an expiry, and shows its secret only then', async () => {
    const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
    const created = await issue({
      userId: aliceId,
      role: 'customer',
      label: '  shop-web production ',
      scopes: ['orders:read', 'orders:write'],
      expiresAt,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      userId: aliceId,
      label: 'shop-web production',
      scopes: ['orders:read', 'orders:write'],
      expiresAt,
      lastUsedAt: null,
      replacedBy: null,
    });
    const read = await call<KeyJson>(`/v1/api-keys/${created.body.id}`);
    expect(read.body).not.toHaveProperty('key');
    expect(JSON.stringify(read.body)).not.toContain(created.body.key as string);
  });

  it('gives a key without scopes everything its role allows', async () => {
    const created = await issue({ userId: aliceId, role: 'customer' });
    expect(created.body.scopes).toEqual([
      'orders:read',
      'orders:write',
      'users:read',
      'users:write',
      'ratings:write',
      'keys:read',
      'keys:write',
      'webhooks:write',
    ]);
    expect(created.body.expiresAt).toBeNull();
  });

  it('refuses scopes the role does not allow (400) and scopes the issuing key does not hold (403)', async () => {
    const beyondRole = await issue({ userId: aliceId, role: 'customer', scopes: ['orders:read', 'admin'] });
    expect([beyondRole.status, beyondRole.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(beyondRole.body.errors?.[0]).toMatchObject({ in: 'body', name: '/scopes/1' });

    const keyManager = await issue({ userId: bobId, role: 'admin', scopes: ['keys:read', 'keys:write'] });
    const stronger = await issue({ userId: bobId, role: 'admin' }, keyManager.body.key);
    expect([stronger.status, stronger.body.code, stronger.body.requiredScope]).toEqual([
      403,
      'INSUFFICIENT_SCOPE',
      'orders:read',
    ]);
    expect(stronger.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    const asStrong = await issue({ userId: bobId, role: 'admin', scopes: ['keys:read'] }, keyManager.body.key);
    expect(asStrong.status).toBe(201);

    const past = await issue({ userId: aliceId, role: 'customer', expiresAt: '2020-01-01T00:00:00.000Z' });
    expect([past.status, past.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('lists every key to admins page by page, one user with userId, and a customer only its own', async () => {
    const pages: KeyJson[] = [];
    let cursor: string | undefined;
    do {
      const page = await call<ListJson>(`/v1/api-keys?size=2&withTotal=true${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      pages.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await call<ListJson>('/v1/api-keys?size=100&withTotal=true');
    expect(pages.map((key) => key.id)).toEqual(all.body.items.map((key) => key.id));
    expect(all.body.totalCount).toBe(all.body.items.length);
    expect(new Set(all.body.items.map((key) => key.userId))).toEqual(new Set([1, aliceId, bobId]));
    for (const key of all.body.items) expect(key).not.toHaveProperty('key');

    const alices = await call<ListJson>(`/v1/api-keys?userId=${aliceId}`);
    expect(alices.body.items.length).toBeGreaterThan(0);
    expect(alices.body.items.every((key) => key.userId === aliceId)).toBe(true);

    const own = await issue({ userId: aliceId, role: 'customer', label: 'alice laptop' });
    const mine = await call<ListJson>('/v1/api-keys', { key: own.body.key });
    expect(mine.body.items.map((key) => key.id).sort()).toEqual(
      alices.body.items
        .map((key) => key.id)
        .concat(own.body.id)
        .sort(),
    );
    const others = await call<ListJson>(`/v1/api-keys?userId=${bobId}`, { key: own.body.key });
    expect(others.body).toEqual({ items: [], hasNext: false });
    const bobsKey = all.body.items.find((key) => key.userId === bobId) as KeyJson;
    expect((await call<ProblemBody>(`/v1/api-keys/${bobsKey.id}`, { key: own.body.key })).body.code).toBe(
      'API_KEY_NOT_FOUND',
    );
  });

  it('records lastUsedAt when a key is used', async () => {
    const created = await issue({ userId: aliceId, role: 'customer' });
    expect((await call('/v1/users/me', { key: created.body.key })).status).toBe(200);
    const read = await call<KeyJson>(`/v1/api-keys/${created.body.id}`);
    expect(Date.parse(read.body.lastUsedAt as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('rotates a key: a new secret with the same scopes and label, the old one ending at the overlap', async () => {
    const old = await issue({ userId: aliceId, role: 'customer', label: 'erp sync', scopes: ['orders:read'] });
    // Rotating needs `keys:write`, which this key does not hold.
    const self = await rotate(old.body.id, undefined, old.body.key);
    expect([self.status, self.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const before = Date.now();
    const rotated = await rotate(old.body.id, undefined);
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get('location')).toBe(`/v1/api-keys/${rotated.body.id}`);
    expect(rotated.body).toMatchObject({ userId: aliceId, label: 'erp sync', scopes: ['orders:read'] });
    expect(rotated.body.key).not.toBe(old.body.key);
    const replaced = await call<KeyJson>(`/v1/api-keys/${old.body.id}`);
    expect(replaced.body.replacedBy).toBe(rotated.body.id);
    // The default overlap: 24 hours from the rotation.
    const overlapEnd = Date.parse(replaced.body.expiresAt as string);
    expect(overlapEnd).toBeGreaterThanOrEqual(before + DAY - 1000);
    expect(overlapEnd).toBeLessThanOrEqual(Date.now() + DAY);
    // Both work during the overlap.
    expect((await call('/v1/orders', { key: old.body.key })).status).toBe(200);
    expect((await call('/v1/orders', { key: rotated.body.key })).status).toBe(200);

    const again = await rotate(old.body.id, undefined);
    expect([again.status, again.body.code]).toEqual([409, 'API_KEY_INACTIVE']);
  });

  it('bounds the overlap to 7 days, and an overlap that ends now stops the old key at once', async () => {
    const old = await issue({ userId: aliceId, role: 'customer' });
    const tooLong = await rotate(old.body.id, { overlapUntil: new Date(Date.now() + 8 * DAY).toISOString() });
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(tooLong.body.errors?.[0]).toMatchObject({ name: '/overlapUntil' });
    expect((await call('/v1/orders', { key: old.body.key })).status).toBe(200);

    const immediate = await rotate(old.body.id, { overlapUntil: new Date(Date.now() + 1000).toISOString() });
    expect(immediate.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await call<ProblemBody>('/v1/orders', { key: old.body.key });
    expect([refused.status, refused.body.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('does not replay a creation for a repeated Idempotency-Key: each reveals a new secret once', async () => {
    const headers = { 'Idempotency-Key': 'same-key-twice' };
    const first = await call<KeyJson>('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ userId: aliceId, role: 'customer' }),
      headers,
    });
    const second = await call<KeyJson>('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ userId: aliceId, role: 'customer' }),
      headers,
    });
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('never lets a customer’s rotation extend its key’s expiry; an admin may', async () => {
    const expiresAt = new Date(Date.now() + DAY).toISOString();
    const later = new Date(Date.now() + 30 * DAY).toISOString();
    for (const body of [{ expiresAt: null }, { expiresAt: later }]) {
      const own = await issue({ userId: aliceId, role: 'customer', expiresAt });
      const extended = await rotate(own.body.id, body, own.body.key);
      expect([extended.status, extended.body.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_FAILED']);
      expect(JSON.stringify(extended.body)).toContain('expiresAt');
    }
    const own = await issue({ userId: aliceId, role: 'customer', expiresAt });
    const kept = await rotate(own.body.id, undefined, own.body.key);
    expect([kept.status, kept.body.expiresAt]).toEqual([201, expiresAt]);
    const sooner = new Date(Date.now() + DAY / 2).toISOString();
    expect((await rotate(kept.body.id, { expiresAt: sooner }, kept.body.key)).body.expiresAt).toBe(sooner);
    const byAdmin = await issue({ userId: aliceId, role: 'customer', expiresAt });
    expect((await rotate(byAdmin.body.id, { expiresAt: null })).status).toBe(201);
  });

  it('keeps one live predecessor per key, and revokes the live predecessors with the key', async () => {
    const first = await issue({ userId: aliceId, role: 'customer' });
    const second = await rotate(first.body.id, undefined, first.body.key);
    const third = await rotate(second.body.id, undefined, second.body.key);
    // The second rotation within the first's overlap ended the first key at once; the second overlaps.
    expect((await call('/v1/users/me', { key: first.body.key })).status).toBe(401);
    expect((await call('/v1/users/me', { key: second.body.key })).status).toBe(200);
    expect((await call('/v1/users/me', { key: third.body.key })).status).toBe(200);

    const fourth = await rotate(third.body.id, undefined, third.body.key);
    expect((await call(`/v1/api-keys/${third.body.id}`, { method: 'DELETE' })).status).toBe(204);
    // Revoking the third revoked its live predecessor (the second) too; its successor stays.
    expect((await call('/v1/users/me', { key: second.body.key })).status).toBe(401);
    expect((await call('/v1/users/me', { key: third.body.key })).status).toBe(401);
    expect((await call('/v1/users/me', { key: fourth.body.key })).status).toBe(200);
  });

  it('lets a customer rotate its own key but not anyone else’s', async () => {
    const alices = await issue({ userId: aliceId, role: 'customer' });
    const bobs = await issue({ userId: bobId, role: 'customer' });
    const foreign = await rotate(bobs.body.id, undefined, alices.body.key);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'API_KEY_NOT_FOUND']);
    expect((await rotate(alices.body.id, undefined, alices.body.key)).status).toBe(201);
  });
});
