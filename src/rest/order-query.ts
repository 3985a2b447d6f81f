import type { OrderConditions } from '../core/orders/order-filters.js';

/**
 * The conditions of `GET /v1/orders` from its query string, which the pipeline has checked against the
 * contract: numbers and booleans arrive as text, and `status` may list states comma-separated (each has
 * matched `OrderStatusFilterValue`, which admits no spaces). Paging parameters are left to `listInput`.
 */
export function queryConditions(query: Readonly<Record<string, string>>): OrderConditions {
  const conditions: OrderConditions = {};
  if (query.status !== undefined) conditions.status = query.status.split(',');
  if (query.userId !== undefined) conditions.userId = Number(query.userId);
  if (query.from !== undefined) conditions.from = query.from;
  if (query.to !== undefined) conditions.to = query.to;
  if (query.minAmount !== undefined) conditions.minAmount = Number(query.minAmount);
  if (query.hasCoupon !== undefined) conditions.hasCoupon = query.hasCoupon === 'true';
  if (query.q !== undefined) conditions.q = query.q;
  return conditions;
}
