/** What an attempt's outcome means for its delivery and its endpoint: retries, 410, three days of failure. */
import type { AttemptRecord, ClaimedDelivery } from '../ports/index.js';
import { webhookEndpointRepresentation } from './representations.js';

/** The default back-off between attempts, in seconds (WEBHOOK_RETRY_SECONDS). */
export const DEFAULT_RETRY_SECONDS = [5, 300, 1800, 7200, 18000, 36000] as const;

/** How long an endpoint may fail without a success before it is disabled. */
export const FAILING_LIMIT_MS = 3 * 24 * 3600 * 1000;

/** One attempt as the sender saw it. */
export interface AttemptResult {
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** What happens next. */
export interface NextStep {
  state: 'succeeded' | 'pending' | 'failed';
  /** When `pending`: the next attempt. */
  nextAttemptAt: Date | null;
  /** The endpoint is disabled, and why. */
  disable: 'gone' | 'failing' | null;
  /** Since when the endpoint fails (`null` after a success). */
  failingSince: Date | null;
}

/** Decides after attempt number `attempt` (1 for the first). */
export function nextStep(
  result: AttemptResult,
  {
    attempt,
    failingSince,
    now,
    schedule,
  }: { attempt: number; failingSince: Date | null; now: Date; schedule: readonly number[] },
): NextStep {
  if (result.status !== null && result.status >= 200 && result.status < 300) {
    return { state: 'succeeded', nextAttemptAt: null, disable: null, failingSince: null };
  }
  const since = failingSince ?? now;
  if (result.status === 410) return { state: 'failed', nextAttemptAt: null, disable: 'gone', failingSince: since };
  if (now.getTime() - since.getTime() >= FAILING_LIMIT_MS) {
    return { state: 'failed', nextAttemptAt: null, disable: 'failing', failingSince: since };
  }
  const wait = schedule[attempt - 1];
  if (wait === undefined) return { state: 'failed', nextAttemptAt: null, disable: null, failingSince: since };
  return { state: 'pending', nextAttemptAt: new Date(now.getTime() + wait * 1000), disable: null, failingSince: since };
}

/** The record of an attempt: the next step, and the `webhook_endpoint.disabled` event when it disables. */
export function attemptRecord(
  delivery: ClaimedDelivery,
  result: AttemptResult,
  { now, schedule }: { now: Date; schedule: readonly number[] },
): AttemptRecord {
  const step = nextStep(result, {
    attempt: delivery.attempts + 1,
    failingSince: delivery.endpoint.failingSince,
    now,
    schedule,
  });
  const { endpoint } = delivery;
  const disable = step.disable && {
    reason: step.disable,
    event: {
      type: 'webhook_endpoint.disabled' as const,
      ownerUserId: endpoint.userId,
      subject: `webhook_endpoint:${endpoint.id}`,
      data: {
        object: webhookEndpointRepresentation({ ...endpoint, disabledReason: step.disable, updatedAt: now }),
      },
    },
  };
  return { delivery, ...result, ...step, disable: disable || null };
}
