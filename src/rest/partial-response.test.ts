import { describe, expect, it } from 'vitest';
import { selectMembers } from './partial-response.js';
import { partialRequest } from './validated-request.js';

const names = (...list: string[]) => new Set(list);
const order = {
  id: 7,
  userId: 2,
  items: [{ id: 1, sku: 'KB-1', quantity: 2 }],
  amount: 99,
  status: 'PAID',
  note: null,
};

describe('selectMembers', () => {
  it('keeps only the named members of a resource, in the resource’s order', () => {
    expect(Object.entries(selectMembers(order, names('status', 'id', 'note')) as object)).toEqual([
      ['id', 7],
      ['status', 'PAID'],
      ['note', null],
    ]);
    expect(selectMembers(order, names('missing'))).toEqual({});
  });

  it('applies to each item of a list envelope, whose own members stay', () => {
    const list = { items: [order, { ...order, id: 8 }], nextCursor: 'abc', hasNext: true, totalCount: 2 };
    expect(selectMembers(list, names('id'))).toEqual({
      items: [{ id: 7 }, { id: 8 }],
      nextCursor: 'abc',
      hasNext: true,
      totalCount: 2,
    });
  });

  it('treats a resource with an items array of its own (an order) as the resource, not a list', () => {
    expect(selectMembers(order, names('items'))).toEqual({ items: order.items });
    expect(selectMembers(order, names('id'))).toEqual({ id: 7 });
  });

  it('drops the omitted members, with or without a selection', () => {
    expect(selectMembers(order, undefined, names('amount', 'items', 'note'))).toEqual({
      id: 7,
      userId: 2,
      status: 'PAID',
    });
    expect(selectMembers(order, names('id', 'amount'), names('amount'))).toEqual({ id: 7 });
    expect(selectMembers({ items: [order], hasNext: false }, undefined, names('items'))).toEqual({
      items: [{ id: 7, userId: 2, amount: 99, status: 'PAID', note: null }],
      hasNext: false,
    });
  });

  it('returns the body itself when there is nothing to select, and leaves what is not an object', () => {
    expect(selectMembers(order, undefined)).toBe(order);
    expect(selectMembers(order, undefined, new Set())).toBe(order);
    for (const value of [null, 'text', 3, [order]]) expect(selectMembers(value, names('id'))).toBe(value);
    expect(selectMembers({ items: [1, null], hasNext: false }, names('id'))).toEqual({
      items: [1, null],
      hasNext: false,
    });
  });
});

describe('partialRequest', () => {
  it('reads fields from the query, comma-separated (readQuery joins the repeated form)', () => {
    const query = { fields: 'id,status', size: '2' };
    expect(partialRequest(query, undefined)).toEqual({ fields: names('id', 'status'), query });
    expect(partialRequest({ size: '2' }, undefined)).toBeUndefined();
  });

  it('reads a search body’s fields array', () => {
    expect(partialRequest({}, { fields: ['id'], size: 2 })?.fields).toEqual(names('id'));
    expect(partialRequest({}, { size: 2 })).toBeUndefined();
    expect(partialRequest({}, null)).toBeUndefined();
  });

  it('includes amountDetail when fields names it, beside the parts already asked for', () => {
    expect(partialRequest({ fields: 'amountDetail' }, undefined)?.query).toEqual({
      fields: 'amountDetail',
      include: 'amountDetail',
    });
    expect(partialRequest({}, { fields: ['amountDetail'], include: [] })?.query).toEqual({ include: 'amountDetail' });
    const unchanged = { fields: 'id', include: 'amountDetail' };
    expect(partialRequest(unchanged, undefined)?.query).toBe(unchanged);
  });
});
