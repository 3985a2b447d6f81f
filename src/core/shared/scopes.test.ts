import { describe, expect, it } from 'vitest';
import type { Caller } from './caller.js';
import { DomainError } from './errors.js';
import { SCOPES, scopesOfRole } from './scope-catalog.js';
import { requireScope, scopeDeclaration } from './scopes.js';

const customer = (scopes?: Caller['scopes']): Caller => ({
  userId: 7,
  role: 'customer',
  apiKeyId: 3,
  ...(scopes ? { scopes } : {}),
});

/** The code and members a rule throws, or 'ok'. */
function outcome(run: () => void): string | { code: string; requiredScope?: string } {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, ...error.members };
  }
}

describe('requireScope', () => {
  it('lets anyone through a public operation, and no one without a key through any other', () => {
    expect(outcome(() => requireScope(null, 'public'))).toBe('ok');
    expect(outcome(() => requireScope(null, 'orders:read'))).toEqual({ code: 'UNAUTHENTICATED' });
  });

  it('refuses a scope the key lacks with INSUFFICIENT_SCOPE naming it, and passes one it holds', () => {
    const reader = customer(['orders:read']);
    expect(outcome(() => requireScope(reader, 'orders:read'))).toBe('ok');
    expect(outcome(() => requireScope(reader, 'orders:write'))).toEqual({
      code: 'INSUFFICIENT_SCOPE',
      requiredScope: 'orders:write',
    });
  });

  it('answers FORBIDDEN, as before scopes, for a scope the role can never hold', () => {
    expect(outcome(() => requireScope(customer(), 'catalog:write'))).toEqual({ code: 'FORBIDDEN' });
    expect(outcome(() => requireScope(customer(['admin' as never]), 'admin'))).toEqual({ code: 'FORBIDDEN' });
  });

  it('gives a caller without a key (operator, seed) all its role allows', () => {
    for (const scope of scopesOfRole('customer')) expect(outcome(() => requireScope(customer(), scope))).toBe('ok');
    expect(scopesOfRole('admin')).toEqual(SCOPES);
  });
});

describe('scopeDeclaration', () => {
  it('accepts a scope or public, and names the place of anything else', () => {
    expect(scopeDeclaration('users:read', 'x')).toBe('users:read');
    expect(scopeDeclaration('public', 'x')).toBe('public');
    expect(() => scopeDeclaration(undefined, 'operation getOrder')).toThrow(/getOrder declares no known scope/);
    expect(() => scopeDeclaration('orders:delete', 'Query.order')).toThrow(/Query.order/);
  });
});
