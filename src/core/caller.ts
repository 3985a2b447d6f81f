import { DomainError } from './errors.js';

/** Who is calling: the user an API key acts as, and the key's role. */
export interface Caller {
  userId: number;
  role: 'admin' | 'customer';
  apiKeyId: number | null;
  /** The key's own rate budget (points per window), when an admin set one. */
  rateLimit?: number;
}

/** Whether the caller may act on resources of `ownerId` (admins: every user; customers: themself). */
export function canSee(caller: Caller, ownerId: number): boolean {
  return caller.role === 'admin' || caller.userId === ownerId;
}

/** Throws FORBIDDEN unless the caller is an admin. */
export function requireAdmin(caller: Caller, action: string): void {
  if (caller.role !== 'admin') throw new DomainError('FORBIDDEN', `Only admins may ${action}.`);
}
