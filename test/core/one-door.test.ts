import { describe, expectTypeOf, it } from 'vitest';
import type { Idempotent } from '../../src/core/idempotency/idempotency.js';
import type { Core } from '../../src/core/index.js';
import type { PlaceOrderInput } from '../../src/core/orders/orders.js';
import type { Caller } from '../../src/core/shared/caller.js';
import type { Order } from '../../src/core/shared/model.js';

// Type-level: checked by `npm run typecheck` (tsc), which CI runs; the runtime part only names the claims.

/** Every function of every service of a core, as `service.member`. */
type Member<C> = {
  [S in keyof C & string]: C[S] extends object
    ? {
        [M in keyof C[S] & string]: C[S][M] extends (...args: never[]) => unknown ? [`${S}.${M}`, C[S][M]] : never;
      }[keyof C[S] & string]
    : never;
}[keyof C & string];

/** Whether a parameter type takes an order to place: an object with its lines or the draft to place. */
type TakesAnOrderToPlace<P> = P extends object
  ? Extract<keyof P, 'items' | 'draftId'> extends never
    ? never
    : true
  : never;

/** Whether a member answers with an order (as it is, or inside the idempotent envelope). */
type AnswersAnOrder<R> = R extends Promise<infer T> ? (T extends Order | Idempotent<Order> ? true : never) : never;

/** The names of the members that take an order to place and answer with the order. */
type PlacingDoors<C> =
  Member<C> extends infer Entry
    ? Entry extends [infer Name, (...args: infer Args) => infer R]
      ? true extends TakesAnOrderToPlace<Args[number]>
        ? true extends AnswersAnOrder<R>
          ? Name
          : never
        : never
      : never
    : never;

/** A core with doors beside the idempotent one: as `core.orders.place` used to be, and by lines only. */
type CoreWithABareDoor = Omit<Core, 'orders'> & {
  orders: Core['orders'] & {
    placeNow(caller: Caller, input: PlaceOrderInput): Promise<Order>;
    placeLines(caller: Caller, order: { items: Array<{ productId: number; quantity: number }> }): Promise<Order>;
  };
};

describe("the core's public API", () => {
  it('places an order only through the idempotent use case', () => {
    expectTypeOf<PlacingDoors<Core>>().toEqualTypeOf<'orders.place'>();
    expectTypeOf<ReturnType<Core['orders']['place']>>().toEqualTypeOf<Promise<Idempotent<Order>>>();
    expectTypeOf<Parameters<Core['orders']['place']>[2]>().toEqualTypeOf<
      { idempotencyKey?: string | undefined; signal?: AbortSignal | undefined } | undefined
    >();
  });

  it('the check finds a second door (the fixture breaks the rule)', () => {
    expectTypeOf<PlacingDoors<CoreWithABareDoor>>().toEqualTypeOf<
      'orders.place' | 'orders.placeNow' | 'orders.placeLines'
    >();
  });
});
