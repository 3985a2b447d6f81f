import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';

describe('mergePatch (RFC 7396 over flat fields)', () => {
  const current: { note: string | null; couponCode: string | null; status: string } = {
    note: 'leave at the door',
    couponCode: 'WELCOME',
    status: 'PENDING',
  };

  it('keeps what the patch leaves out, replaces what it gives, and clears with null', () => {
    expect(mergePatch(current, { status: 'PAID', note: null })).toEqual({
      note: null,
      couponCode: 'WELCOME',
      status: 'PAID',
    });
  });

  it('reads only the current fields from the patch, and leaves the current object as it was', () => {
    const patch = { couponCode: undefined, id: 7 } as Partial<typeof current>;
    expect(mergePatch(current, patch)).toEqual(current);
    expect(Object.keys(mergePatch(current, patch))).toEqual(['note', 'couponCode', 'status']);
    mergePatch(current, { note: 'x' });
    expect(current.note).toBe('leave at the door');
  });
});
