import { registryItem } from '@order-api/contract-registry/testing';
import { describe, expect, it } from 'vitest';
import type { CallerUsage, UsageKind } from '../ports/usage.js';
import type { Caller } from '../shared/caller.js';
import type { ApiKey } from '../shared/model.js';
import { createDeprecatedUsageService, deprecatedUsagePath } from './deprecated-usage.js';

const item = registryItem;

const operation = item('rest.listProducts');
const amount = item('rest.Order.amount', { status: 'watched', deprecated: null, sunset: null });
const NOW = new Date('2026-12-01T12:00:00.000Z');

const key = (id: number, userId: number): ApiKey => ({
  id,
  userId,
  role: 'customer',
  createdAt: NOW,
  revokedAt: null,
  rateLimit: null,
  label: null,
  scopes: ['orders:read'],
  expiresAt: null,
  lastUsedAt: null,
  replacedBy: null,
  chainId: id,
});
const keys = new Map([
  [7, key(7, 1)],
  [8, key(8, 1)],
  [9, key(9, 2)],
]);

const row = (apiKeyId: number, itemId: string, day: string, kind: UsageKind, count: number): CallerUsage => ({
  item: itemId,
  apiKeyId,
  client: 'shop/1.0',
  label: null,
  day,
  kind,
  count,
  firstSeen: new Date(`${day}T08:00:00.000Z`),
  lastSeen: new Date(`${day}T09:00:00.000Z`),
  ownerName: null,
  ownerEmail: null,
});

/** The service over in-memory rows; `asked` records the (key, first day) of every read. */
function service(rows: CallerUsage[]) {
  const asked: Array<[number, string]> = [];
  const usage = createDeprecatedUsageService({
    registry: { items: [operation, amount] },
    usage: {
      keyUsage: async (apiKeyId, sinceDay) => {
        asked.push([apiKeyId, sinceDay]);
        return rows.filter((entry) => entry.apiKeyId === apiKeyId && entry.day >= sinceDay);
      },
      totals: async () => [],
    },
    apiKeys: { get: async (id) => keys.get(id) },
    brownouts: {
      announced: (id) =>
        id === operation.id
          ? [
              {
                id: 3,
                item: id,
                startsAt: new Date('2026-12-09T10:00:00.000Z'),
                endsAt: new Date('2026-12-09T10:30:00.000Z'),
              } as never,
            ]
          : [],
    },
    now: () => NOW,
  });
  return { usage, asked };
}

const ann: Caller = { userId: 1, role: 'customer', apiKeyId: 7 };
const bo: Caller = { userId: 2, role: 'customer', apiKeyId: 9 };
const admin: Caller = { userId: 3, role: 'admin', apiKeyId: 1 };
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );

describe('a key’s own deprecated usage', () => {
  const rows = [
    row(7, operation.id, '2026-11-30', 'use', 2),
    row(7, operation.id, '2026-12-01', 'use', 1),
    row(7, operation.id, '2026-12-01', 'brownout', 1),
    row(7, amount.id, '2026-12-01', 'replacement', 4),
    // A retired item (no longer in the registry) and a day before the period are not current use.
    row(7, 'rest.retiredThing', '2026-12-01', 'use', 5),
    row(7, operation.id, '2026-11-01', 'use', 50),
    row(8, operation.id, '2026-12-01', 'use', 9),
  ];

  it('folds the key’s rows of the last 30 days per registry item, with daily counts and windows', async () => {
    const { usage, asked } = service(rows);
    const own = await usage.ofKey(ann, 7);
    expect(asked).toEqual([[7, '2026-11-02']]);
    expect(own).toMatchObject({ apiKeyId: 7, from: '2026-11-02', to: '2026-12-01' });
    expect(
      own.items.map(({ item: { id }, uses, replacementUses, brownoutHits }) => [
        id,
        uses,
        replacementUses,
        brownoutHits,
      ]),
    ).toEqual([
      ['rest.Order.amount', 0, 4, 0],
      ['rest.listProducts', 3, 0, 1],
    ]);
    expect(own.items[1]?.daily).toEqual([
      { day: '2026-11-30', uses: 2, replacementUses: 0, brownoutHits: 0 },
      { day: '2026-12-01', uses: 1, replacementUses: 0, brownoutHits: 1 },
    ]);
    expect(own.items[1]?.brownouts.map((window) => window.id)).toEqual([3]);
    expect(own.items[0]?.state).toBe('watched');
  });

  it('lets the owner read each of their keys and an admin any key; anyone else gets API_KEY_NOT_FOUND', async () => {
    const { usage } = service(rows);
    expect((await usage.ofKey(ann, 8)).items.map((entry) => entry.uses)).toEqual([9]);
    expect((await usage.ofKey(admin, 7)).items).toHaveLength(2);
    expect(await codeOf(usage.ofKey(bo, 7))).toBe('API_KEY_NOT_FOUND');
    expect(await codeOf(usage.ofKey(bo, 404))).toBe('API_KEY_NOT_FOUND');
    expect(await codeOf(usage.ofKey(admin, 404))).toBe('API_KEY_NOT_FOUND');
  });

  it('reads the calling key as `own`, and as a member of the caller’s own user only', async () => {
    const { usage } = service(rows);
    expect((await usage.own(ann)).apiKeyId).toBe(7);
    expect((await usage.ownOnUser(ann, 1)).apiKeyId).toBe(7);
    expect(await codeOf(usage.ownOnUser(admin, 1))).toBe('FORBIDDEN');
    expect(await codeOf(usage.own({ ...ann, apiKeyId: null }))).toBe('API_KEY_NOT_FOUND');
  });

  it('links a caller with a key to its usage, and nobody else', () => {
    expect(deprecatedUsagePath(7, '/v1')).toBe('/v1/api-keys/7/deprecations');
    expect(deprecatedUsagePath(7, '/v2')).toBe('/v2/api-keys/7/deprecations');
    expect(deprecatedUsagePath(0, '/v1')).toBeUndefined();
    expect(deprecatedUsagePath(null, '/v1')).toBeUndefined();
  });
});
