/**
 * Scopes: what an API key may be used for, beside its role (who it acts as). Each REST operation and each
 * GraphQL field declares the one scope it needs in its contract (`x-scope`, `@scope`); the transports read
 * the declarations at start and ask this rule, so REST and GraphQL refuse alike.
 */
import { type Caller, unauthenticated } from './caller.js';
import { DomainError } from './errors.js';
import { isScope, PUBLIC, type Scope, type ScopeDeclaration, SELF, scopesOfRole } from './scope-catalog.js';

/** The scopes a caller holds: its key's, or (an in-process caller without a key) all its role allows. */
export function scopesOf(caller: Caller): readonly Scope[] {
  return caller.scopes ?? scopesOfRole(caller.role);
}

/** The refusal of a caller whose key lacks a scope: 403 `INSUFFICIENT_SCOPE`, naming it. */
export function insufficientScope(scope: Scope, action = 'This operation'): DomainError {
  return new DomainError(
    'INSUFFICIENT_SCOPE',
    `${action} needs the scope "${scope}", which this API key does not hold.`,
    undefined,
    { requiredScope: scope },
  );
}

/**
 * The scope rule of every operation: a public one needs nothing; anything else needs a caller
 * (UNAUTHENTICATED); a `self` one nothing more (its use case checks a scope for what is not the caller's
 * own); any other a caller whose role allows the declared scope (FORBIDDEN, as before scopes existed: a customer
 * creating a product) and whose key holds it (INSUFFICIENT_SCOPE). Each use case checks its own role
 * rules after this.
 */
export function requireScope(caller: Caller | null | undefined, declared: ScopeDeclaration): void {
  if (declared === PUBLIC) return;
  if (!caller) throw unauthenticated.missing();
  if (declared === SELF) return;
  if (!scopesOfRole(caller.role).includes(declared)) {
    throw new DomainError('FORBIDDEN', `The role ${caller.role} does not allow operations that need "${declared}".`);
  }
  if (!scopesOf(caller).includes(declared)) throw insufficientScope(declared);
}

/** Reads a contract's declaration; anything but a known scope or `public` is a contract error at start. */
export function scopeDeclaration(value: unknown, where: string): ScopeDeclaration {
  if (value === PUBLIC || value === SELF || (typeof value === 'string' && isScope(value))) return value;
  throw new Error(
    `${where} declares no known scope (found ${JSON.stringify(value)}); see src/core/shared/scope-catalog.ts`,
  );
}
