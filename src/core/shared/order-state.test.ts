import { describe, expect, it } from 'vitest';
import { isPaid, type OrderStatus, orderStatuses, transition } from './order-state.js';

// The whole table of docs/decisions.md §3, written out so that a change to the rules shows up here.
const table: Record<OrderStatus, Record<OrderStatus, string>> = {
  PENDING: {
    PENDING: 'unchanged',
    PAID: 'PAID',
    SHIPPED: 'PAID,SHIPPED',
    DELIVERED: 'PAID,SHIPPED,DELIVERED',
    CANCELED: 'cancel',
  },
  PAID: {
    PENDING: 'invalid',
    PAID: 'unchanged',
    SHIPPED: 'SHIPPED',
    DELIVERED: 'SHIPPED,DELIVERED',
    CANCELED: 'cancel',
  },
  SHIPPED: { PENDING: 'invalid', PAID: 'invalid', SHIPPED: 'unchanged', DELIVERED: 'DELIVERED', CANCELED: 'cancel' },
  DELIVERED: { PENDING: 'invalid', PAID: 'invalid', SHIPPED: 'invalid', DELIVERED: 'unchanged', CANCELED: 'cancel' },
  CANCELED: { PENDING: 'invalid', PAID: 'invalid', SHIPPED: 'invalid', DELIVERED: 'invalid', CANCELED: 'unchanged' },
};

describe('the order state machine', () => {
  for (const from of orderStatuses) {
    for (const to of orderStatuses) {
      it(`${from} → ${to}: ${table[from][to]}`, () => {
        const result = transition(from, to);
        const summary = result.kind === 'forward' ? result.steps.join(',') : result.kind;
        expect(summary).toBe(table[from][to]);
      });
    }
  }

  it('counts PAID, SHIPPED and DELIVERED as paid (refunds and shipments follow)', () => {
    expect(orderStatuses.filter(isPaid)).toEqual(['PAID', 'SHIPPED', 'DELIVERED']);
  });
});
