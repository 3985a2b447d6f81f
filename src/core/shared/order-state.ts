/** Every state an order can be in. */
export const orderStatuses = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELED'] as const;

/** The state of an order. */
export type OrderStatus = (typeof orderStatuses)[number];

const forward: readonly OrderStatus[] = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED'];

/** What a requested status change means for an order in a given state. */
export type Transition =
  | { kind: 'unchanged' }
  | { kind: 'forward'; steps: OrderStatus[] }
  | { kind: 'cancel' }
  | { kind: 'invalid' };

/**
 * The order state machine (docs/decisions.md §3): forward only, one or more steps, along
 * PENDING → PAID → SHIPPED → DELIVERED; CANCELED from any state and final. Asking for the current state
 * changes nothing, which makes a repeated cancel a no-op.
 */
export function transition(from: OrderStatus, to: OrderStatus): Transition {
  if (from === to) return { kind: 'unchanged' };
  if (from === 'CANCELED') return { kind: 'invalid' };
  if (to === 'CANCELED') return { kind: 'cancel' };
  const start = forward.indexOf(from);
  const end = forward.indexOf(to);
  if (end <= start) return { kind: 'invalid' };
  return { kind: 'forward', steps: forward.slice(start + 1, end + 1) };
}

/** Whether an order in this state has been paid (refunds and shipments depend on it). */
export function isPaid(status: OrderStatus): boolean {
  return status === 'PAID' || status === 'SHIPPED' || status === 'DELIVERED';
}
