/**
 * The webhook dispatcher of an instance: a bounded pool of concurrent attempts. It claims due deliveries
 * as slots free (any number of instances share the queue through FOR UPDATE SKIP LOCKED and a lease),
 * sends each once, and records the outcomes the core decides, several in one statement. An attempt holds
 * its slot until its outcome is recorded; a receiver that hangs holds one slot until the attempt's time-out,
 * and one endpoint never holds more than `perEndpoint` slots, so the others go on delivering.
 * Woken by the event feed when an event commits, and by a poll for retries and missed notifications.
 */

import { type AttemptResult, attemptRecord } from '../core/events/webhook-delivery.js';
import type { DeprecationsOfDelivery } from '../core/lifecycle/event-deprecations.js';
import type { ClaimedDelivery, WebhookStore } from '../core/ports/index.js';
import { type EventEnvelope, type StoredEvent, toEnvelope } from '../core/shared/events.js';
import type { WebhookMessage } from './http-sender.js';
import { createRecorder } from './recorder.js';
import { createSlots } from './slots.js';

/** Envelopes kept serialized (by event id), so that an event going to several endpoints is serialized once. */
const BODIES_KEPT = 256;

/** What the dispatcher is built from. */
export interface DispatcherOptions {
  store: WebhookStore;
  send: (message: WebhookMessage) => Promise<AttemptResult>;
  schedule: readonly number[];
  pollMs: number;
  /** How long a claim holds a delivery: longer than an attempt can take (a crashed instance's claim lapses then). */
  leaseMs: number;
  onError: (error: unknown) => void;
  now?: () => Date;
  /**
   * The deprecated and watched items a delivery carries (src/core/lifecycle/event-deprecations.ts): their signal
   * headers go with each attempt, and their uses are counted once an attempt is accepted. Absent when no
   * item touches an event.
   */
  deprecations?: DeprecationsOfDelivery | undefined;
  /** Told of each delivery its receiver accepted (the request-shape record: what the endpoint's owner receives). */
  onAccepted?: ((delivery: ClaimedDelivery, envelope: EventEnvelope) => void) | undefined;
  /** Attempts in flight at once (default 32; ./slots.ts). */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint (default a quarter of `concurrency`, at most all of it). */
  perEndpoint?: number;
  /**
   * Each endpoint owner's budget of deliveries (WEBHOOK_DELIVERIES_PER_MINUTE): an attempt takes a point
   * from its owner's before it is sent; past it, the delivery is deferred untried, never dropped.
   */
  ownerBudget?: OwnerBudget;
}

/** The budget an endpoint owner's deliveries draw from; `deferred` hears of each one put back. */
export interface OwnerBudget {
  /** `perMinute`: the owner's own budget when an admin set one (WebhookLimits), else the server's. */
  take(ownerUserId: number, perMinute?: number | null): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  deferred(delivery: ClaimedDelivery): void;
}

/**
 * Creates a dispatcher; `start` begins polling, `wake` claims what is due now (its promise resolves once
 * the dispatcher is idle: nothing claimed in flight), `stop` waits for the attempts in flight.
 */
export function createWebhookDispatcher(options: DispatcherOptions) {
  const now = options.now ?? (() => new Date());
  const slots = createSlots(options);
  const recorder = createRecorder(options.store, options.onError);
  const bodyOf = envelopeBodies();
  let claiming = false;
  /** Something may be due that the last claim did not take (a wake-up came, or the claim found some). */
  let more = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const idle = idleSignal();

  const settle = () => {
    if (slots.inFlight() > 0 || claiming || (more && !stopped)) return;
    idle.reached();
  };

  const attempt = async (delivery: ClaimedDelivery) => {
    const endpointId = delivery.endpoint.id;
    try {
      if (options.ownerBudget && (await deferred(options, delivery, now))) return;
      const { record, accepted } = await sendOne(options, delivery, bodyOf(delivery.event), now);
      await recorder.record(record);
      // Counted once the accepted attempt is recorded: a retry of an unrecorded one would count again.
      if (record.state === 'succeeded') accepted();
    } catch (error) {
      options.onError(error); // the lease runs out and the delivery is tried again: at least once
    } finally {
      if (slots.give(endpointId)) more = true; // the endpoint was full: the claims may have left some behind
      fill();
    }
  };

  /** Claims as many due deliveries as there are free slots, when something may be due; one claim at a time. */
  function fill() {
    const free = slots.free();
    if (stopped || claiming || !more || free <= 0) return settle();
    more = false;
    claiming = true;
    options.store
      .claimDue(free, options.leaseMs, slots.room())
      .then((claimed) => {
        slots.take(claimed.map((delivery) => delivery.endpoint.id));
        // Something was due, so more may be: claim again until a claim finds nothing (or no slot is free).
        if (claimed.length > 0) more = true;
        for (const delivery of claimed) void attempt(delivery);
      }, options.onError)
      .finally(() => {
        claiming = false;
        fill();
      });
  }

  const wake = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    more = true;
    const done = idle.next();
    fill();
    return done;
  };

  return {
    start() {
      timer = setInterval(() => void wake(), options.pollMs);
      timer.unref();
      void wake();
    },
    wake,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (slots.inFlight() > 0 || claiming) await idle.next();
      await recorder.flushed();
    },
  };
}

/**
 * Takes a point of the delivery's owner's budget; when it is spent, puts the delivery back untried until
 * the budget has a point again (`true`). A budget that cannot answer (its store failed) lets it through.
 */
async function deferred(options: DispatcherOptions, delivery: ClaimedDelivery, now: () => Date): Promise<boolean> {
  const budget = options.ownerBudget as OwnerBudget;
  const charge = await budget
    .take(delivery.endpoint.userId, delivery.ownerDeliveriesPerMinute)
    .catch(() => ({ allowed: true, retryAfterSeconds: 0 }));
  if (charge.allowed) return false;
  await options.store.defer(delivery, new Date(now().getTime() + Math.max(1, charge.retryAfterSeconds) * 1000));
  budget.deferred(delivery);
  return true;
}

/** One attempt, with the deprecation signals of what it carries: its record, and its uses to count once recorded. */
async function sendOne(options: DispatcherOptions, delivery: ClaimedDelivery, body: string, now: () => Date) {
  const deprecations = options.deprecations?.(delivery, toEnvelope(delivery.event));
  const result = await options.send({
    url: delivery.endpoint.url,
    id: delivery.event.id,
    secrets: delivery.secrets,
    body,
    ...(deprecations ? { headers: deprecations.headers } : {}),
  });
  const record = attemptRecord(delivery, result, { now: now(), schedule: options.schedule });
  return {
    record,
    accepted: () => {
      deprecations?.accepted();
      options.onAccepted?.(delivery, toEnvelope(delivery.event));
    },
  };
}

/** Serialized envelopes by event id (the last `BODIES_KEPT`): an event going to several endpoints is serialized once. */
function envelopeBodies() {
  const bodies = new Map<string, string>();
  return (event: StoredEvent): string => {
    let body = bodies.get(event.id);
    if (body === undefined) {
      body = JSON.stringify(toEnvelope(event) satisfies EventEnvelope);
      bodies.set(event.id, body);
      if (bodies.size > BODIES_KEPT) bodies.delete(bodies.keys().next().value as string);
    }
    return body;
  };
}

/** The next time the dispatcher is idle: one promise shared by all who wait (wake-ups come per event). */
function idleSignal() {
  let pending: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    next(): Promise<void> {
      if (!pending) {
        let resolve = () => {};
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        pending = { promise, resolve };
      }
      return pending.promise;
    },
    reached() {
      pending?.resolve();
      pending = undefined;
    },
  };
}
