import { canonicalJson } from '@order-api/contract-registry';
import { describe, expect, it } from 'vitest';
import { createCursorCodec, filterDigest } from './cursor.js';
import { DomainError } from './errors.js';
import { formatSort, pageSize, parseSort } from './paging.js';

const codec = createCursorCodec('a-secret-of-at-least-thirty-two-characters');
const digest = filterDigest({ status: ['PAID'], userId: 7 });

function expectInvalidCursor(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_CURSOR');
    return;
  }
  throw new Error('expected INVALID_CURSOR');
}

describe('cursors', () => {
  it('round-trip the last sort-key values for the same sort and filters', () => {
    const token = codec.encode('-createdAt,-id', digest, ['2026-11-20T09:30:00.000Z', 1001]);
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(codec.decode(token, '-createdAt,-id', digest)).toEqual(['2026-11-20T09:30:00.000Z', 1001]);
  });

  it('reject a tampered body, a tampered signature and garbage as INVALID_CURSOR', () => {
    const token = codec.encode('-createdAt,-id', digest, ['2026-11-20T09:30:00.000Z', 1001]);
    const [body, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(body, 'base64url').toString().replace('1001', '1')).toString('base64url');
    expectInvalidCursor(() => codec.decode(`${forged}.${signature}`, '-createdAt,-id', digest));
    expectInvalidCursor(() => codec.decode(`${body}.${signature.slice(1)}A`, '-createdAt,-id', digest));
    for (const garbage of ['', '.', 'abc', 'a.b.c', '%%%.%%%', `${body}.`]) {
      expectInvalidCursor(() => codec.decode(garbage, '-createdAt,-id', digest));
    }
  });

  it('reject a cursor made with another secret, another sort or other filters', () => {
    const token = codec.encode('-createdAt,-id', digest, ['2026-11-20T09:30:00.000Z', 1001]);
    const foreign = createCursorCodec('another-secret-of-at-least-thirty-two-chars');
    expectInvalidCursor(() => foreign.decode(token, '-createdAt,-id', digest));
    expectInvalidCursor(() => codec.decode(token, 'amount,id', digest));
    expectInvalidCursor(() => codec.decode(token, '-createdAt,-id', filterDigest({ status: ['SHIPPED'], userId: 7 })));
  });

  it("bind a changed list's cursor to the version that made it; a cursor without a version is v1's", () => {
    const v1 = codec.encode('-createdAt,-id', digest, [1001]);
    const v2 = codec.encode('-createdAt,-id', digest, [1001], 'v2');
    expect(codec.decode(v1, '-createdAt,-id', digest, 'v1')).toEqual([1001]);
    expect(codec.decode(v2, '-createdAt,-id', digest, 'v2')).toEqual([1001]);
    expectInvalidCursor(() => codec.decode(v2, '-createdAt,-id', digest));
    expectInvalidCursor(() => codec.decode(v1, '-createdAt,-id', digest, 'v2'));
    expect(() => codec.decode(v2, '-createdAt,-id', digest)).toThrow(/made by v2 of this list/);
  });

  it('digest filters independently of member order and of undefined members', () => {
    expect(filterDigest({ userId: 7, status: ['PAID'], q: undefined })).toBe(digest);
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 1 }] })).toBe('{"a":[{"c":1,"d":2}],"b":1}');
  });
});

describe('sort and size', () => {
  it('parses the one sort form and appends id as the final tie-breaker', () => {
    expect(formatSort(parseSort(undefined, ['createdAt', 'amount', 'id'], '-createdAt'))).toBe('-createdAt,-id');
    expect(formatSort(parseSort('-amount,createdAt', ['createdAt', 'amount', 'id'], '-createdAt'))).toBe(
      '-amount,createdAt,id',
    );
    expect(formatSort(parseSort('-id', ['createdAt', 'amount', 'id'], '-createdAt'))).toBe('-id');
  });

  it('rejects fields outside the whitelist, and reads a field named again once (the contracts allow repeats)', () => {
    expect(() => parseSort('email', ['createdAt', 'id'], 'id')).toThrow(/not allowed/);
    expect(parseSort('id,-id', ['createdAt', 'id'], 'id')).toEqual([{ field: 'id', descending: false }]);
    expect(parseSort('createdAt,createdAt', ['createdAt', 'id'], 'id')).toEqual(
      parseSort('createdAt', ['createdAt', 'id'], 'id'),
    );
  });

  it('defaults the size to 20, cuts it to 100 and rejects values below 1', () => {
    expect(pageSize(undefined)).toBe(20);
    expect(pageSize(100)).toBe(100);
    expect(pageSize(101)).toBe(100);
    expect(pageSize(10_000)).toBe(100);
    expect(() => pageSize(0)).toThrow(DomainError);
    expect(() => pageSize(2.5)).toThrow(DomainError);
  });
});
