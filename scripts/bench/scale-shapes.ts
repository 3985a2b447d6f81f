/**
 * The shapes of the order list that `npm run bench:scale` times: each sort in both directions, each filter
 * with each sort it is served with by index (docs/api.md: a range filter with a sort on another column is
 * the exception), mixed sorts at page 1 and half-way deep, `q` with common, rare and absent terms,
 * `withTotal` on the shapes whose counts the writes keep, and the contract's own search example.
 */

import type { OrderFilters } from '../../src/core/ports/index.js';
import type { Minor } from '../../src/core/shared/money.js';

/** One shape: its filters, its sort, whether it continues half-way deep, whether it counts. */
export interface Shape {
  name: string;
  filters: OrderFilters;
  sort: string;
  deep?: boolean;
  withTotal?: boolean;
}

const SORTS = ['createdAt', '-createdAt', 'amount', '-amount', 'id', '-id'];
const DAY = 24 * 60 * 60 * 1000;

/** Every shape, named as the REST query string would name it. */
export function scaleShapes(): Shape[] {
  const shapes: Shape[] = [];
  const each = (name: string, filters: OrderFilters, sorts = SORTS) => {
    for (const sort of sorts) shapes.push({ name: `${name}${name ? '&' : ''}sort=${sort}`, filters, sort });
  };
  each('', {});
  each('status=PAID', { status: ['PAID'] });
  each('status=PAID,SHIPPED', { status: ['PAID', 'SHIPPED'] });
  each('hasCoupon=true', { hasCoupon: true });
  each('userId=2', { userId: 2 }, ['createdAt', '-createdAt']);
  const from = new Date(Date.now() - 30 * DAY);
  each('from=<30 days ago>', { from }, ['createdAt', '-createdAt']);
  each('minAmount=5000', { minAmount: 500_000 as Minor }, ['amount', '-amount']);
  shapes.push({ name: 'sort=-amount,createdAt', filters: {}, sort: '-amount,createdAt' });
  shapes.push({ name: 'sort=-amount,createdAt (half-way deep)', filters: {}, sort: '-amount,createdAt', deep: true });
  shapes.push({ name: 'sort=amount,-createdAt (half-way deep)', filters: {}, sort: 'amount,-createdAt', deep: true });
  for (const [label, q] of [
    ['common', 'product'],
    ['in 1 of 50', 'Product 42'],
    ['in 1 of 100,000', 'rare parcel'],
    ['in 20 orders at any size', 'lost parcel'],
    ['absent', 'no such parcel'],
  ] as const) {
    each(`q=${q} (${label})`, { q }, ['-createdAt', '-amount']);
  }
  for (const [name, filters] of [
    ['', {}],
    ['status=PAID', { status: ['PAID'] }],
    ['status=PAID,SHIPPED', { status: ['PAID', 'SHIPPED'] }],
    ['userId=2', { userId: 2 }],
    ['userId=2&status=DELIVERED', { userId: 2, status: ['DELIVERED'] }],
  ] as Array<[string, OrderFilters]>) {
    shapes.push({ name: `${name}${name ? '&' : ''}withTotal=true`, filters, sort: '-createdAt', withTotal: true });
  }
  // POST /v1/orders/search's example in contracts/openapi.yaml, without and with its `from` (a range: its
  // count counts the matches, docs/api.md).
  const example = { filters: { status: ['PAID', 'SHIPPED'] } as OrderFilters, sort: '-amount', withTotal: true };
  shapes.push({ name: 'search example without from (PAID,SHIPPED; -amount; withTotal)', ...example });
  shapes.push({
    name: 'search example (PAID,SHIPPED; from 28 days ago; -amount; withTotal)',
    ...example,
    // A date, as in the example: midnight UTC.
    filters: { ...example.filters, from: new Date(Math.floor(Date.now() / DAY - 28) * DAY) },
  });
  return shapes;
}
