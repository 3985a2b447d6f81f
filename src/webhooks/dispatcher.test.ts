import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptResult } from '../core/events/webhook-delivery.js';
import type { AttemptRecord, ClaimedDelivery, ClaimRoom, WebhookEndpoint } from '../core/ports/webhooks.js';
import type { StoredEvent } from '../core/shared/events.js';
import { createRateLimiter } from '../redis/rate-limiter.js';
import { createWebhookDispatcher } from './dispatcher.js';
import type { WebhookMessage } from './http-sender.js';

const at = new Date('2026-11-26T10:00:00Z');

const endpoint = (id: number, userId = 1): WebhookEndpoint => ({
  id,
  userId,
  apiKeyId: null,
  allOwners: true,
  url: `https://hooks.example.com/${id}`,
  events: ['order.created'],
  description: null,
  disabledReason: null,
  previousSecretExpiresAt: null,
  failingSince: null,
  createdAt: at,
  updatedAt: at,
});

const event = (n: number): StoredEvent => ({
  seq: n,
  id: `evt_${n}`,
  type: 'order.created',
  createdAt: at,
  ownerUserId: 1,
  subject: `order:${n}`,
  data: { object: { id: n } } as unknown as StoredEvent['data'],
});

/** The queue in memory, claimed as the SQL store claims it: oldest first, within each endpoint's room. */
function memoryQueue() {
  const pending: ClaimedDelivery[] = [];
  const leased = new Set<number>();
  const batches: AttemptRecord[][] = [];
  const deferrals: Array<{ id: number; until: Date }> = [];
  let claims = 0;
  let nextId = 1;
  return {
    batches,
    deferrals,
    claims: () => claims,
    add(endpointId: number, eventNumber: number, ownerUserId = 1, ownerDeliveriesPerMinute: number | null = null) {
      pending.push({
        ownerDeliveriesPerMinute,
        id: nextId++,
        attempts: 0,
        lease: 'lease',
        endpoint: endpoint(endpointId, ownerUserId),
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
        event: event(eventNumber),
      });
    },
    store: {
      async claimDue(limit: number, _leaseMs: number, room?: ClaimRoom) {
        claims++;
        const taken = new Map(room?.busy ?? []);
        const claimed: ClaimedDelivery[] = [];
        for (const delivery of pending) {
          const count = taken.get(delivery.endpoint.id) ?? 0;
          if (claimed.length === limit || leased.has(delivery.id)) continue;
          if (room && count >= room.perEndpoint) continue;
          taken.set(delivery.endpoint.id, count + 1);
          leased.add(delivery.id);
          claimed.push(delivery);
        }
        return claimed;
      },
      async recordAll(attempts: readonly AttemptRecord[]) {
        batches.push([...attempts]);
        for (const attempt of attempts) pending.splice(pending.indexOf(attempt.delivery), 1);
      },
      async record(attempt: AttemptRecord) {
        await this.recordAll([attempt]);
      },
      async defer(delivery: ClaimedDelivery, until: Date) {
        deferrals.push({ id: delivery.id, until });
      },
    },
  };
}

/** A sender whose attempts to `hanging` endpoints never end until `release`; the others answer at once. */
function fakeSender(hanging: string[] = []) {
  const sent: WebhookMessage[] = [];
  const held: Array<() => void> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const send = async (message: WebhookMessage): Promise<AttemptResult> => {
    sent.push(message);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    if (hanging.some((url) => message.url.endsWith(url))) await new Promise<void>((resolve) => held.push(resolve));
    else await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    return { status: 204, durationMs: 1, error: null };
  };
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  return { send, sent, mostInFlight: () => mostInFlight, release };
}

function dispatcherOver(
  queue: ReturnType<typeof memoryQueue>,
  send: ReturnType<typeof fakeSender>['send'],
  options = {},
) {
  return createWebhookDispatcher({
    store: queue.store as never,
    send,
    schedule: [5],
    pollMs: 60_000, // no poll within a test: whatever is sent was claimed as slots freed
    leaseMs: 60_000,
    onError: (error) => {
      throw error;
    },
    now: () => at,
    ...options,
  });
}

const delivered = (sender: ReturnType<typeof fakeSender>, path: string) =>
  sender.sent.filter((message) => message.url.endsWith(path)).map((message) => message.id);

/**
 * The dispatcher's timers (the fake sender's 1 ms answers, the recorder's next turn) run on a fake clock,
 * advanced by the test: what a step waits for has happened when it looks, however loaded the machine.
 */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Advances the fake clock until `promise` settles (at most 10 s of it). */
async function settled<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  for (let ms = 0; !done && ms < 10_000; ms++) await elapse(1);
  return watched;
}

describe('webhook dispatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps at most `concurrency` attempts in flight, claiming more as slots free', async () => {
    const queue = memoryQueue();
    for (let n = 1; n <= 10; n++) queue.add(n % 2, n);
    const sender = fakeSender();
    const dispatcher = dispatcherOver(queue, sender.send, { concurrency: 3, perEndpoint: 3 });
    await settled(dispatcher.wake());
    expect(sender.sent).toHaveLength(10);
    expect(sender.mostInFlight()).toBe(3);
    expect(queue.batches.flat()).toHaveLength(10);
  });

  it('goes on delivering to a healthy endpoint while an attempt to another hangs', async () => {
    const queue = memoryQueue();
    queue.add(1, 1); // to /1, which hangs
    queue.add(2, 1);
    const sender = fakeSender(['/1']);
    const dispatcher = dispatcherOver(queue, sender.send, { concurrency: 4 });
    void dispatcher.wake();
    for (let n = 2; n <= 5; n++) {
      queue.add(1, n);
      queue.add(2, n);
      await elapse(5);
      void dispatcher.wake();
    }
    await elapse(20);
    expect(delivered(sender, '/2')).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    sender.release();
    await settled(dispatcher.stop());
  });

  it('gives one endpoint at most `perEndpoint` slots, so that a hanging one does not take them all', async () => {
    const queue = memoryQueue();
    for (let n = 1; n <= 10; n++) queue.add(1, n); // a backlog for the endpoint that hangs, queued first
    queue.add(2, 11);
    const sender = fakeSender(['/1']);
    const dispatcher = dispatcherOver(queue, sender.send, { concurrency: 4, perEndpoint: 2 });
    void dispatcher.wake();
    await elapse(20);
    expect(delivered(sender, '/1')).toEqual(['evt_1', 'evt_2']);
    expect(delivered(sender, '/2')).toEqual(['evt_11']);
    sender.release(); // the two attempts end: two more of the backlog go out, as the slots free
    await elapse(20);
    expect(delivered(sender, '/1')).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4']);
    sender.release();
    await elapse(20);
    sender.release();
    await elapse(20);
    sender.release();
    await elapse(20);
    sender.release();
    await settled(dispatcher.stop());
    expect(delivered(sender, '/1')).toHaveLength(10);
  });

  it('records outcomes that end together in one batch, and serializes an event once for all its endpoints', async () => {
    const queue = memoryQueue();
    for (const endpointId of [1, 2, 3]) queue.add(endpointId, 1);
    // Held until all three are out, then let go in one turn: they end together, whatever the machine's load
    // (three 1 ms timers may fire in different turns).
    const sender = fakeSender(['/1', '/2', '/3']);
    const dispatcher = dispatcherOver(queue, sender.send);
    const woken = dispatcher.wake();
    while (sender.sent.length < 3) await elapse(1);
    sender.release();
    await settled(woken);
    expect(queue.batches.map((batch) => batch.length)).toEqual([3]);
    expect(queue.batches[0]?.map((record) => record.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(new Set(sender.sent.map((message) => message.body)).size).toBe(1);
    expect(JSON.parse(sender.sent[0]?.body ?? '')).toEqual({
      id: 'evt_1',
      type: 'order.created',
      createdAt: at.toISOString(),
      data: { object: { id: 1 } },
    });
  });

  it('stops after the attempts in flight, and claims nothing more', async () => {
    const queue = memoryQueue();
    queue.add(1, 1);
    const sender = fakeSender(['/1']);
    const dispatcher = dispatcherOver(queue, sender.send);
    void dispatcher.wake();
    await elapse(5);
    let stopped = false;
    const stopping = dispatcher.stop().then(() => {
      stopped = true;
    });
    queue.add(2, 2);
    await settled(dispatcher.wake());
    await elapse(5);
    expect(stopped).toBe(false);
    sender.release();
    await settled(stopping);
    expect(queue.batches.flat().map((record) => record.delivery.event.id)).toEqual(['evt_1']);
    expect(delivered(sender, '/2')).toEqual([]);
  });

  it('defers, untried and unlogged, what an owner sends past its delivery budget, and delivers the others', async () => {
    const queue = memoryQueue();
    for (let n = 1; n <= 5; n++) queue.add(1, n, 1);
    queue.add(2, 6, 2);
    queue.add(2, 7, 2);
    const sender = fakeSender();
    // The budgets the server keeps (src/redis/rate-limiter.ts, in memory here): 3 a minute per owner.
    const limiter = createRateLimiter({ windowSeconds: 60, logger: { info() {}, warn() {} } as never });
    const deferred: number[] = [];
    const dispatcher = dispatcherOver(queue, sender.send, {
      ownerBudget: {
        take: (ownerUserId: number) => limiter.charge({ subject: `owner:${ownerUserId}`, quota: 3 }, 1),
        deferred: (delivery: ClaimedDelivery) => deferred.push(delivery.id),
      },
    });
    await settled(dispatcher.wake());
    expect(delivered(sender, '/1')).toHaveLength(3);
    expect(delivered(sender, '/2')).toEqual(['evt_6', 'evt_7']);
    // Two of owner 1's were put back to be claimed once a point has refilled (20 s at 3 a minute).
    expect(queue.deferrals.map((deferral) => deferral.id).sort()).toEqual(deferred.sort());
    expect(deferred).toHaveLength(2);
    for (const { until } of queue.deferrals) expect((until.getTime() - at.getTime()) / 1000).toBe(20);
    // Nothing was logged of them: a deferral is not an attempt.
    expect(queue.batches.flat()).toHaveLength(5);
    await limiter.close();
  });

  it("draws an owner's deliveries from its own budget when an admin set one", async () => {
    const queue = memoryQueue();
    for (let n = 1; n <= 6; n++) queue.add(1, n, 1, 5);
    const sender = fakeSender();
    const limiter = createRateLimiter({ windowSeconds: 60, logger: { info() {}, warn() {} } as never });
    const dispatcher = dispatcherOver(queue, sender.send, {
      ownerBudget: {
        take: (ownerUserId: number, perMinute?: number | null) =>
          limiter.charge({ subject: `owner:${ownerUserId}`, quota: perMinute ?? 3 }, 1),
        deferred: () => undefined,
      },
    });
    await settled(dispatcher.wake());
    expect(delivered(sender, '/1')).toHaveLength(5);
    expect(queue.deferrals).toHaveLength(1);
    await limiter.close();
  });
});
