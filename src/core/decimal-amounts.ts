/**
 * Amounts as every interface carries them, numbers with at most two decimals, to and from the core's
 * integer minor units (src/core/money.ts). A conversion of form only: what an amount is made of (its VAT
 * split, its total) is the core's to decide.
 */
import { DomainError } from './errors.js';
import type { Minor } from './money.js';

/** Converts a wire amount (a number with at most two decimals) to minor units; rejects more precision. */
export function toMinor(amount: number, name = 'amount'): Minor {
  const minor = Math.round(amount * 100);
  if (!Number.isFinite(amount) || Math.abs(minor - amount * 100) > 1e-6 || !Number.isSafeInteger(minor)) {
    throw new DomainError('VALIDATION_FAILED', `${name} must be a number with at most two decimals.`, [
      { in: 'body', name, message: 'must have at most two decimals' },
    ]);
  }
  return minor;
}

/** Converts minor units to the wire number (two decimals, no float noise). */
export function fromMinor(minor: Minor): number {
  return minor / 100;
}
