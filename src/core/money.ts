/** Money is carried in integer minor units (cents) everywhere inside the service. */
export type Minor = number;

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
  return { supply: total - vat, vat, total };
}
