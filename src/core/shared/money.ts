declare const minorUnits: unique symbol;

/**
 * Money inside the service: an integer of minor units (cents). Branded, so that an amount on the wire
 * (major units, two decimals) cannot reach a minor-unit rule or column without `toMinor`
 * (src/core/shared/decimal-amounts.ts), which checks and converts it: the compiler refuses the mix-up.
 */
export type Minor = number & { readonly [minorUnits]: true };

/** Minor units read from storage or summed from other minor units (a count of cents, not a wire amount). */
export const minor = (cents: number): Minor => cents as Minor;

/** The sum of amounts in minor units. */
export const sumMinor = (amounts: Iterable<Minor>): Minor => {
  let total = 0;
  for (const amount of amounts) total += amount;
  return minor(total);
};

/** `unit × quantity` in minor units. */
export const timesMinor = (unit: Minor, quantity: number): Minor => minor(unit * quantity);

/** A total split into supply and VAT, in minor units; `supply + vat === total` always. */
export interface VatSplit {
  supply: Minor;
  vat: Minor;
  total: Minor;
}

/**
 * Splits a VAT-inclusive total: `vat = round_half_up(total × rate / (1 + rate))`, `supply = total − vat`.
 * The rate is taken to 1/10000 and the division is done in integers, so no float error can move a cent.
 */
export function splitVat(total: Minor, rate: number): VatSplit {
  const basisPoints = BigInt(Math.round(rate * 10_000));
  const numerator = BigInt(total) * basisPoints;
  const denominator = 10_000n + basisPoints;
  // round half up for non-negative values: floor((2n + d) / 2d)
  const vat = Number((2n * numerator + denominator) / (2n * denominator));
  return { supply: minor(total - vat), vat: minor(vat), total };
}
