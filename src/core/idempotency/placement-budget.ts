/** A step's outcome: its value, or what it failed with. */
export type Settled<T> = { value: T } | { error: unknown };

/**
 * The budget of one order placement: each step before the order's write is raced against the deadline, so
 * the caller is answered when the budget runs out, not when a slow database finally answers. A step left
 * behind goes on; `late` gets its outcome to clean up after it (give back the stock it reserved).
 */
export function placementBudget(deadline: number, timeout: () => Error) {
  let slowestTrip = 0;
  return {
    /**
     * Awaits `work` (about `trips` round trips to the database), or fails with `timeout()` once the deadline
     * passes, handing `work`'s outcome to `late` when it comes.
     */
    async step<T>(work: Promise<T>, trips = 1, late?: (outcome: Settled<T>) => void): Promise<T> {
      const started = Date.now();
      const settled = work.then(
        (value): Settled<T> => ({ value }),
        (error: unknown): Settled<T> => ({ error }),
      );
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), Math.max(0, deadline - started));
      });
      const outcome = await Promise.race([settled, expired]);
      clearTimeout(timer);
      if (outcome === 'expired') {
        if (late) void settled.then(late);
        throw timeout();
      }
      slowestTrip = Math.max(slowestTrip, (Date.now() - started) / trips);
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    },
    /** Whether one more round trip, as slow as the slowest so far, still ends within the budget. */
    fitsOneMoreTrip: () => Date.now() + slowestTrip < deadline,
  };
}

/** The budget a use case answers within, its claim included, and the error it answers with past it. */
export interface UseCaseBudget {
  ms: number;
  timeout: () => Error;
}

/**
 * Within a budget the claim is raced too: one that lands after the caller was answered gives its key back
 * at once (`giveBack`, fenced by its token), so the caller's retry is not held off for the lease.
 */
export function withinBudget<C extends { kind: string; token?: string }>(
  claiming: Promise<C>,
  startedAt: number,
  budget: UseCaseBudget | undefined,
  giveBack: (token: string) => Promise<unknown>,
): Promise<C> {
  if (!budget) return claiming;
  return placementBudget(startedAt + budget.ms, budget.timeout).step(claiming, 1, (late) => {
    if ('value' in late && late.value.kind === 'claimed' && late.value.token) void giveBack(late.value.token);
  });
}
