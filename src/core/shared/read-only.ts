import { canonicalJson } from '@order-api/contract-registry';
import { DomainError, type Violation } from './errors.js';

/**
 * The members of an order a client may send back in a PUT or PATCH body but never change, by the core's
 * field names (`amountDetail` is the order's derived split of `amount`).
 */
export const ORDER_READ_ONLY = ['id', 'userId', 'items', 'amount', 'amountDetail', 'createdAt', 'updatedAt'] as const;

/** The members of a user a client may send back but never change. */
export const USER_READ_ONLY = ['id', 'createdAt', 'lastLoginAt'] as const;

/**
 * What a write's body carried besides its writable members, for the core to compare with what is stored.
 * An echo is compared in the form it was sent, so the transport supplies the stored resource in that form.
 */
export interface ReadOnlyEcho<T> {
  /** The body's members, keyed by the core's field names (a wire that renames a member maps it back first). */
  sent: Readonly<Record<string, unknown>>;
  /** The stored resource as the transport would answer it, keyed the same way. */
  view(current: T): Readonly<Record<string, unknown>>;
}

/**
 * Refuses read-only members sent with a value other than the current one (docs/decisions.md §3): sent back
 * unchanged they are ignored, as a client that PUTs what it read expects.
 */
export function refuseReadOnlyChanges<T>(
  fields: readonly string[],
  echo: ReadOnlyEcho<T> | undefined,
  current: T,
): void {
  if (!echo || !fields.some((name) => name in echo.sent)) return;
  const stored = echo.view(current);
  const violations: Violation[] = fields
    .filter((name) => name in echo.sent && canonicalJson(echo.sent[name]) !== canonicalJson(stored[name]))
    .map((name) => ({ in: 'body', name: `/${name}`, message: 'is read-only; send the current value or leave it out' }));
  if (violations.length > 0) {
    throw new DomainError(
      'READ_ONLY_FIELD',
      `Read-only members cannot be changed: ${violations.map((v) => v.name).join(', ')}.`,
      violations,
    );
  }
}
