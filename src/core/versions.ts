import { DomainError } from './errors.js';

/** Something versioned for optimistic concurrency (its ETag). */
export interface Versioned {
  version: number;
}

/** Throws `stale()` unless the caller's `If-Match` version (when given) is the current one. */
export function checkVersion(current: Versioned, ifMatchVersion: number | undefined, stale: () => DomainError): void {
  if (ifMatchVersion !== undefined && ifMatchVersion !== current.version) throw stale();
}

/**
 * Without If-Match the caller asked for no precondition, so a write that lost a race with another one is
 * recomputed from the fresh state (up to three times) instead of answering 412. With If-Match, 412 stands.
 */
export async function retryStale<T>(ifMatchVersion: number | undefined, attempt: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      const lostRace = error instanceof DomainError && error.code === 'PRECONDITION_FAILED';
      if (!lostRace || ifMatchVersion !== undefined || round >= 3) throw error;
    }
  }
}
