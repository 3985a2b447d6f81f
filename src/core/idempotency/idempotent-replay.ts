import type { IdempotencyStore } from '../ports/index.js';
import { DomainError } from '../shared/index.js';

/** The outcome of an idempotent call: the result and whether it is a replay of an earlier one. */
export interface Idempotent<T> {
  result: T;
  replayed: boolean;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Stored results are JSON; timestamps come back as Dates, as the service returned them the first time. */
const revive = (key: string, value: unknown) =>
  key.endsWith('At') && typeof value === 'string' && ISO_TIME.test(value) ? new Date(value) : value;

/**
 * The answer to a key already claimed: the stored result, or why it cannot be given. A claim in progress
 * says when its lease runs out (`leaseEnd`), the latest moment a retry can take the key over.
 */
export function replayOf<T>(
  claim: Exclude<Awaited<ReturnType<IdempotencyStore['claim']>>, { kind: 'claimed' }>,
  fingerprint: string,
  secondsUntil: (moment: Date) => number,
  leaseMs: number,
): Idempotent<T> {
  if (claim.fingerprint !== fingerprint) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with another request; use a new key for a new request.',
    );
  }
  if (claim.kind === 'in-progress') {
    const retryAfter = secondsUntil(new Date(claim.claimedAt.getTime() + leaseMs));
    throw new DomainError(
      'IDEMPOTENCY_KEY_IN_USE',
      `A request with this Idempotency-Key is still running; retry in ${retryAfter} s at the latest (Retry-After).`,
      undefined,
      undefined,
      retryAfter,
    );
  }
  return { result: JSON.parse(JSON.stringify(claim.result), revive) as T, replayed: true };
}
