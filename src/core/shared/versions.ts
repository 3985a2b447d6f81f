import { DomainError } from './errors.js';
import type { ReadOnlyEcho } from './read-only.js';

/** Something versioned for optimistic concurrency (its ETag). */
export interface Versioned {
  version: number;
}

/** The conditions of a PUT or PATCH: the `If-Match` version, and the read-only members the body echoed. */
export interface WriteConditions<T> {
  ifMatchVersion?: number | undefined;
  echo?: ReadOnlyEcho<T> | undefined;
}

/** Throws `stale()` unless the caller's `If-Match` version (when given) is the current one. */
export function checkVersion(current: Versioned, ifMatchVersion: number | undefined, stale: () => DomainError): void {
  if (ifMatchVersion !== undefined && ifMatchVersion !== current.version) throw stale();
}

/** How long a write without If-Match keeps retrying after losing races before it gives up. */
export const STALE_RETRY_BUDGET_MS = 10_000;

/**
 * Without If-Match the caller asked for no precondition, so a write that lost a race with another one is
 * recomputed from the fresh state, after a short random pause, until it wins or STALE_RETRY_BUDGET_MS
 * have passed (a bound in time, not in rounds: 20 concurrent writers of one order need up to 20 rounds).
 * With If-Match, 412 stands.
 */
export async function retryStale<T>(
  ifMatchVersion: number | undefined,
  attempt: () => Promise<T>,
  budgetMs = STALE_RETRY_BUDGET_MS,
): Promise<T> {
  const giveUpAt = Date.now() + budgetMs;
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      const lostRace = error instanceof DomainError && error.code === 'PRECONDITION_FAILED';
      if (!lostRace || ifMatchVersion !== undefined || Date.now() >= giveUpAt) throw error;
      // Jitter spreads the losers out so that they do not collide again on the next round.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 5 * round)));
    }
  }
}
