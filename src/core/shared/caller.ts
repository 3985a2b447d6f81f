import { DomainError, invalidInput } from './errors.js';
import type { Scope } from './scope-catalog.js';

/** Who is calling: the user an API key acts as, and the key's role. */
export interface Caller {
  userId: number;
  role: 'admin' | 'customer';
  apiKeyId: number | null;
  /**
   * The first key of the key's rotation chain (ApiKey.chainId): what its open subscriptions and its rate
   * budget are counted by, so that a rotation does not start them afresh. Absent: the key's own id.
   */
  keyChainId?: number;
  /** The key's own rate budget (points per window), when an admin set one. */
  rateLimit?: number;
  /**
   * The scopes of the key; absent for an in-process caller without a key (the operator's CLI, the demo
   * seed), which holds all its role allows (./scopes.ts).
   */
  scopes?: readonly Scope[];
  /** When the key stops working (expiry, or the end of a rotation's overlap); checked on every request. */
  expiresAt?: Date;
}

/** Whether the caller may act on resources of `ownerId` (admins: every user; customers: themself). */
export function canSee(caller: Caller, ownerId: number): boolean {
  return caller.role === 'admin' || caller.userId === ownerId;
}

/** Throws FORBIDDEN unless the caller is an admin. */
export function requireAdmin(caller: Caller, action: string): void {
  if (caller.role !== 'admin') throw new DomainError('FORBIDDEN', `Only admins may ${action}.`);
}

/**
 * The two UNAUTHENTICATED failures, built here only: no credential where one is needed, and a key that
 * is wrong, revoked or expired. Each interface maps them (REST and /metrics add the `WWW-Authenticate` challenge,
 * GraphQL a 401 for a wrong key, gRPC its own status).
 */
export const unauthenticated = {
  missing: () =>
    new DomainError('UNAUTHENTICATED', 'This operation needs an API key: send `Authorization: Bearer <key>`.'),
  // No comma or colon in these two: connect-node percent-encodes them in `grpc-message`, and grpc-js clients
  // (which decode with `decodeURI`) would show `%2C` and `%3A`.
  wrongKey: () => new DomainError('UNAUTHENTICATED', 'The API key is wrong or expired or was revoked or rotated out.'),
  /** A stream's key stopped working while it delivered: the stream ends. */
  ended: () =>
    new DomainError(
      'UNAUTHENTICATED',
      'The API key of this stream expired or was revoked or rotated out. The stream ends. Open it again with a valid key.',
    ),
};

/** The caller, or UNAUTHENTICATED when there is none. */
export function requireCaller(caller: Caller | null | undefined): Caller {
  if (!caller) throw unauthenticated.missing();
  return caller;
}

/**
 * The user a create acts for: an admin names them (`userId` is required), a customer acts for themself
 * (naming someone else is FORBIDDEN). `action` completes "when an admin …" and "Customers … only for
 * themselves", e.g. `places an order`.
 */
export function actingFor(caller: Caller, userId: number | undefined, action: { admin: string; customer: string }) {
  if (caller.role === 'admin') {
    if (userId === undefined) throw invalidInput('userId', `is required when an admin ${action.admin}`);
    return userId;
  }
  if (userId !== undefined && userId !== caller.userId) {
    throw new DomainError('FORBIDDEN', `Customers ${action.customer} only for themselves.`);
  }
  return caller.userId;
}
