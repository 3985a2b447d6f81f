/**
 * Amounts as every interface carries them, decimal numbers in major units, to and from the core's integer
 * minor units (src/core/shared/money.ts). A conversion of form only: what an amount may be (`multipleOf: 0.01`,
 * its bounds) is the contract's rule, checked by the transport before it converts; what an amount is made
 * of (its VAT split, its total) is the core's.
 */
import { Big } from 'big.js';
import { type Minor, minor } from './money.js';

/** Minor units in one major unit: every amount has two decimals (docs/decisions.md §9, Money). */
const MINOR_PER_MAJOR = 100;

/**
 * A wire amount in minor units, exactly (19.99 → 1999, with no binary rounding). The amount must be one the
 * contract has already checked (a multiple of 0.01): anything else is a transport that skipped its
 * validation, a fault of the server, not of the caller.
 */
export function toMinor(amount: number): Minor {
  const cents = new Big(amount).times(MINOR_PER_MAJOR);
  if (!cents.eq(cents.round(0)) || !Number.isSafeInteger(cents.toNumber())) {
    throw new RangeError(`${amount} reached toMinor unchecked: the contract allows only whole cents`);
  }
  return minor(cents.toNumber());
}

/**
 * The fewest minor units that are at least `amount`: how a lower bound of any precision (`minAmount`)
 * compares with amounts that all have whole cents. `amount ≥ 0.001` holds exactly for the amounts of at
 * least 1 minor unit. Past the largest exact integer no amount can reach it, so it stays there.
 */
export function minorAtLeast(amount: number): Minor {
  const cents = new Big(amount).times(MINOR_PER_MAJOR).round(0, Big.roundUp);
  return minor(Math.min(cents.toNumber(), Number.MAX_SAFE_INTEGER));
}

/** Converts minor units to the wire number (two decimals, no float noise). */
export function fromMinor(amount: Minor): number {
  return amount / MINOR_PER_MAJOR;
}
