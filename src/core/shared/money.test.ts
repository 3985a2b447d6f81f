import { describe, expect, it } from 'vitest';
import { fromMinor, minorAtLeast, toMinor } from './decimal-amounts.js';
import { minor, splitVat } from './money.js';

describe('splitVat', () => {
  it.each([
    // total, rate, vat: round_half_up(total × rate / (1 + rate))
    [1, 0.1, 0], // 0.0909… rounds down
    [6, 0.1, 1], // 0.5454… rounds up
    [11, 0.1, 1],
    [999, 0.1, 91], // 90.818…
    [1000, 0.1, 91], // 90.909…
    [1_000_001, 0.1, 90_909], // 90909.18…
    [99_00, 0.1, 9_00],
    [1, 0.2, 0], // 0.1666…
    [3, 0.2, 1], // 0.5 exactly: half rounds up
    [1_000_001, 0.19, 159_664], // 159663.99…
    [12_345, 0, 0],
  ])('splits %i minor units at rate %d into vat %i, and supply + vat == total', (total, rate, vat) => {
    const split = splitVat(minor(total), rate);
    expect(split.vat).toBe(vat);
    expect(split.supply + split.vat).toBe(total);
    expect(split.total).toBe(total);
  });

  it('stays exact for totals far beyond float precision of the product', () => {
    const total = 9_007_199_254_740; // ~9e12 minor units; total × 1000 exceeds 2^53
    const split = splitVat(minor(total), 0.1);
    expect(split.supply + split.vat).toBe(total);
    expect(split.vat).toBe(818_836_295_885);
  });
});

describe('toMinor / minorAtLeast / fromMinor', () => {
  it('converts two-decimal amounts exactly, including ones that are inexact in binary', () => {
    expect(toMinor(0.1)).toBe(10);
    expect(toMinor(49.5)).toBe(4950);
    expect(toMinor(19.99)).toBe(1999);
    expect(toMinor(0.29)).toBe(29);
    expect(toMinor(1_000_000)).toBe(100_000_000);
    expect(fromMinor(minor(4950))).toBe(49.5);
    expect(fromMinor(toMinor(19.99))).toBe(19.99);
  });

  it('refuses, as a server fault, an amount the contract would have refused (it was not checked)', () => {
    expect(() => toMinor(1.001)).toThrow(RangeError);
    expect(() => toMinor(Number.NaN)).toThrow();
  });

  it('rounds a lower bound up to whole cents, so that `amount >= bound` keeps its meaning', () => {
    expect(minorAtLeast(0.07)).toBe(7); // 0.07 × 100 is 7.000000000000001 in binary
    expect(minorAtLeast(0.001)).toBe(1);
    expect(minorAtLeast(19.99)).toBe(1999);
    expect(minorAtLeast(0)).toBe(0);
    expect(minorAtLeast(1e300)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
