import { describe, expect, it } from 'vitest';
import type { ApiKey, Caller } from '../shared/index.js';
import { DomainError } from '../shared/index.js';
import {
  checkedLabel,
  checkedScopes,
  futureTime,
  inactive,
  isActive,
  keyNotFound,
  overlapEnd,
  requirePassable,
} from './key-rules.js';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-29T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

/** What a rule throws, as a client reads it: the code, the detail and the member it names. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, detail: error.detail, name: error.violations?.[0]?.name, members: error.members };
  }
  throw new Error('expected a refusal');
}

const key = (fields: Partial<ApiKey> = {}): ApiKey => ({
  id: 41,
  userId: 7,
  role: 'customer',
  label: null,
  scopes: ['orders:read'],
  createdAt: at(-HOUR),
  revokedAt: null,
  expiresAt: null,
  lastUsedAt: null,
  replacedBy: null,
  chainId: 41,
  rateLimit: null,
  ...fields,
});

describe('checkedScopes', () => {
  it('keeps known, distinct scopes the role allows, in the order given', () => {
    expect(checkedScopes(['orders:write', 'orders:read'], 'customer')).toEqual(['orders:write', 'orders:read']);
    expect(checkedScopes(['admin'], 'admin')).toEqual(['admin']);
  });

  it('refuses an empty list, an unknown scope, one past the role and a repeat, naming the entry', () => {
    expect(refusal(() => checkedScopes([], 'customer'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      name: '/scopes',
      detail: '/scopes must name at least one scope.',
    });
    expect(refusal(() => checkedScopes(['orders:read', 'orders:fly'], 'customer'))).toMatchObject({
      name: '/scopes/1',
      detail: '/scopes/1 is not a scope ("orders:fly").',
    });
    expect(refusal(() => checkedScopes(['admin'], 'customer'))).toMatchObject({
      name: '/scopes/0',
      detail: '/scopes/0 is not allowed for the role customer ("admin").',
    });
    expect(refusal(() => checkedScopes(['orders:read', 'orders:read'], 'customer'))).toMatchObject({
      name: '/scopes/1',
      detail: '/scopes/1 repeats "orders:read".',
    });
  });
});

describe('requirePassable', () => {
  const holding = (scopes: Caller['scopes']): Caller => ({ userId: 7, role: 'customer', apiKeyId: 41, scopes });

  it('passes on scopes the caller holds, and names the first it lacks', () => {
    expect(() => requirePassable(holding(['orders:read', 'keys:write']), ['orders:read'])).not.toThrow();
    expect(
      refusal(() => requirePassable(holding(['orders:read']), ['orders:read', 'orders:write', 'keys:read'])),
    ).toEqual({
      code: 'INSUFFICIENT_SCOPE',
      detail: 'Giving a key the scope "orders:write" needs the scope "orders:write", which this API key does not hold.',
      name: undefined,
      members: { requiredScope: 'orders:write' },
    });
  });

  it('lets a caller without a key list pass on what its role allows', () => {
    expect(() => requirePassable({ userId: 7, role: 'customer', apiKeyId: null }, ['orders:write'])).not.toThrow();
  });
});

describe('checkedLabel', () => {
  it('trims a label, keeps none as null, and refuses one of spaces only', () => {
    expect(checkedLabel('  billing sync ')).toBe('billing sync');
    expect(checkedLabel(undefined)).toBeNull();
    expect(checkedLabel(null)).toBeNull();
    expect(refusal(() => checkedLabel('   '))).toMatchObject({
      code: 'VALIDATION_FAILED',
      name: '/label',
      detail: '/label must hold characters besides spaces.',
    });
  });
});

describe('futureTime', () => {
  it('takes a time one millisecond ahead and refuses now and the past, naming the member', () => {
    expect(futureTime(at(1), NOW, '/expiresAt')).toEqual(at(1));
    for (const time of [NOW, at(-1)]) {
      expect(refusal(() => futureTime(time, NOW, '/expiresAt'))).toMatchObject({
        name: '/expiresAt',
        detail: '/expiresAt must be in the future (now is 2026-11-29T12:00:00.000Z).',
      });
    }
  });
});

describe('overlapEnd', () => {
  it('is 24 hours ahead when none is asked, and what is asked from now to 7 days ahead', () => {
    expect(overlapEnd(undefined, NOW)).toEqual(at(24 * HOUR));
    expect(overlapEnd(NOW, NOW)).toEqual(NOW);
    expect(overlapEnd(at(7 * 24 * HOUR), NOW)).toEqual(at(7 * 24 * HOUR));
  });

  it('refuses a millisecond in the past and a millisecond past 7 days', () => {
    expect(refusal(() => overlapEnd(at(-1), NOW))).toMatchObject({
      name: '/overlapUntil',
      detail: '/overlapUntil must not be in the past (now is 2026-11-29T12:00:00.000Z).',
    });
    expect(refusal(() => overlapEnd(at(7 * 24 * HOUR + 1), NOW))).toMatchObject({
      name: '/overlapUntil',
      detail: '/overlapUntil must be at most 7 days from now.',
    });
  });
});

describe('isActive and the refusals of keys', () => {
  it('holds a key until it is revoked, rotated or past its expiry (not at it)', () => {
    expect(isActive(key(), NOW)).toBe(true);
    expect(isActive(key({ expiresAt: at(1) }), NOW)).toBe(true);
    expect(isActive(key({ expiresAt: NOW }), NOW)).toBe(false);
    expect(isActive(key({ revokedAt: at(-1) }), NOW)).toBe(false);
    expect(isActive(key({ replacedBy: 42 }), NOW)).toBe(false);
  });

  it('says why a key cannot be rotated, and which key is not found', () => {
    expect(inactive(key({ revokedAt: at(-1) }))).toMatchObject({
      code: 'API_KEY_INACTIVE',
      detail: 'API key 41 is revoked; only a working key can be rotated.',
    });
    expect(inactive(key({ replacedBy: 42 })).detail).toBe(
      'API key 41 is already rotated (replaced by 42); only a working key can be rotated.',
    );
    expect(inactive(key({ expiresAt: at(-1) })).detail).toBe(
      'API key 41 is expired; only a working key can be rotated.',
    );
    expect(keyNotFound(9)).toMatchObject({ code: 'API_KEY_NOT_FOUND', detail: 'There is no API key 9.' });
  });
});
