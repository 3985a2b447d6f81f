/** The rules of a key's own fields: scopes within the role and the issuer's, label, expiry, rotation overlap. */
import type { ApiKey, Caller, Role } from '../shared/index.js';
import {
  DomainError,
  insufficientScope,
  invalidInput,
  isScope,
  type Scope,
  scopesOf,
  scopesOfRole,
} from '../shared/index.js';

/** How long a rotated key keeps working when the rotation names no time, and the most it may be given. */
export const ROTATION_OVERLAP = { defaultMs: 24 * 60 * 60 * 1000, maxMs: 7 * 24 * 60 * 60 * 1000 } as const;

/** Known, distinct scopes that the role allows; anything else is a 400 naming the entry. */
export function checkedScopes(scopes: readonly string[], role: Role): Scope[] {
  if (scopes.length === 0) throw invalidInput('/scopes', 'must name at least one scope');
  const allowed = scopesOfRole(role);
  return scopes.map((scope, index) => {
    if (!isScope(scope)) throw invalidInput(`/scopes/${index}`, `is not a scope ("${scope}")`);
    if (!allowed.includes(scope)) {
      throw invalidInput(`/scopes/${index}`, `is not allowed for the role ${role} ("${scope}")`);
    }
    if (scopes.indexOf(scope) !== index) throw invalidInput(`/scopes/${index}`, `repeats "${scope}"`);
    return scope;
  });
}

/** A key can only pass on scopes it holds (to a new key, or a successor): the first one it lacks is named. */
export function requirePassable(caller: Caller, scopes: readonly Scope[]): void {
  const held = scopesOf(caller);
  const missing = scopes.find((scope) => !held.includes(scope));
  if (missing) throw insufficientScope(missing, `Giving a key the scope "${missing}"`);
}

/**
 * A label without surrounding spaces; null when none is given. Its length is the contract's rule
 * (`ApiKeyLabel`, checked as sent); that it holds more than spaces is the core's.
 */
export function checkedLabel(label: string | null | undefined): string | null {
  if (label === undefined || label === null) return null;
  const trimmed = label.trim();
  if (trimmed.length === 0) throw invalidInput('/label', 'must hold characters besides spaces');
  return trimmed;
}

/** A time that must lie ahead (an expiry). */
export function futureTime(time: Date, at: Date, name: string): Date {
  if (time.getTime() <= at.getTime()) throw invalidInput(name, `must be in the future (now is ${at.toISOString()})`);
  return time;
}

/** The end of a rotation's overlap: now at the earliest, at most 7 days ahead, 24 hours by default. */
export function overlapEnd(requested: Date | undefined, at: Date): Date {
  if (requested === undefined) return new Date(at.getTime() + ROTATION_OVERLAP.defaultMs);
  if (requested.getTime() < at.getTime()) {
    throw invalidInput('/overlapUntil', `must not be in the past (now is ${at.toISOString()})`);
  }
  if (requested.getTime() > at.getTime() + ROTATION_OVERLAP.maxMs) {
    throw invalidInput('/overlapUntil', 'must be at most 7 days from now');
  }
  return requested;
}

/** Whether a key still works: not revoked, not rotated, not expired. */
export const isActive = (key: ApiKey, at: Date) =>
  key.revokedAt === null && key.replacedBy === null && (key.expiresAt === null || key.expiresAt > at);

/** The refusal to rotate a key that no longer works. */
export const inactive = (key: ApiKey) =>
  new DomainError(
    'API_KEY_INACTIVE',
    `API key ${key.id} is ${key.revokedAt ? 'revoked' : key.replacedBy ? `already rotated (replaced by ${key.replacedBy})` : 'expired'}; only a working key can be rotated.`,
  );

/** The answer for a key that does not exist or is not the caller's. */
export const keyNotFound = (id: number) => new DomainError('API_KEY_NOT_FOUND', `There is no API key ${id}.`);

/** What an admin issues a key with. */
export interface ApiKeyInput {
  userId: number;
  role: Role;
  rateLimit?: number | null;
  label?: string | null;
  expiresAt?: Date | null;
  /** Default: every scope the role allows. */
  scopes?: readonly string[];
}

/** What a rotation is asked for. */
export interface RotationInput {
  /** Until when the old key keeps working (default 24 h from now, at most 7 days). */
  overlapUntil?: Date;
  /** The new key's expiry; default the old key's. */
  expiresAt?: Date | null;
}
