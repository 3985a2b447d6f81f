import { describe, expect, it } from 'vitest';
import type { IdempotencyClaim, IdempotencyStore, Store } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { DomainError } from '../shared/index.js';
import { type ClaimHold, createIdempotencyService } from './idempotency.js';

const alice: Caller = { userId: 7, role: 'customer', apiKeyId: 1 };

/**
 * A store of claims that records every call the service makes, and answers each claim as `answer` says
 * (claimed by default, with the token the service chose).
 */
function recordingStore(answer?: (token: string) => IdempotencyClaim) {
  const calls: Array<{ call: string; args: unknown[] }> = [];
  const failures: Partial<Record<keyof IdempotencyStore, Error>> = {};
  const record =
    <T>(call: keyof IdempotencyStore, value: T) =>
    async (...args: unknown[]) => {
      calls.push({ call, args });
      const failure = failures[call];
      if (failure) throw failure;
      return value;
    };
  const idempotency: IdempotencyStore = {
    async claim(...args) {
      calls.push({ call: 'claim', args });
      return answer ? answer(args[7]) : { kind: 'claimed', token: args[7] };
    },
    end: record('end', undefined),
    hold: record('hold', true),
    complete: record('complete', true),
    abandon: record('abandon', true),
    purge: record('purge', 0),
    expireLeases: record('expireLeases', 0),
  };
  const named = (call: string) => calls.filter((entry) => entry.call === call);
  return { store: { idempotency } as Pick<Store, 'idempotency'>, calls, named, failures };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 10));
const failing = (error: Error) => async () => {
  throw error;
};

describe('a create without an Idempotency-Key', () => {
  it('runs its work once under no claim: holding stock is a no-op, there is nothing to complete', async () => {
    const { store, calls } = recordingStore();
    const service = createIdempotencyService(store);
    let seen: ClaimHold | undefined;
    const place = service.useCase('orders.place', async (_caller, input: { n: number }, claim) => {
      seen = claim;
      await claim.hold(41);
      return input.n * 2;
    });
    expect(await place(alice, { n: 21 })).toEqual({ result: 42, replayed: false });
    await expect(seen?.hold(41)).resolves.toBeUndefined();
    expect(seen?.completion).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('a create under a key', () => {
  it('completes the claim with the result, scoped to the caller’s user, unless the work completed it itself', async () => {
    const { store, named } = recordingStore();
    const service = createIdempotencyService(store);
    const plain = service.useCase('users.create', async () => ({ id: 5 }));
    expect(await plain(alice, {}, { idempotencyKey: 'k1' })).toEqual({ result: { id: 5 }, replayed: false });
    expect(named('complete').map(({ args }) => [args[0], args[1], args[3]])).toEqual([['user:7', 'k1', { id: 5 }]]);

    const selfCompleting = service.useCase('orders.place', async (_caller, _input: object, claim) => {
      expect(claim.completion).toMatchObject({ caller: 'user:7', key: 'k2' });
      claim.completed();
      return { id: 6 };
    });
    expect(await selfCompleting(alice, {}, { idempotencyKey: 'k2' })).toEqual({ result: { id: 6 }, replayed: false });
    expect(named('complete')).toHaveLength(1);
  });

  it('hands the work the order a taken-over claim already wrote, and nothing when there is none', async () => {
    let held: number | undefined = 88;
    const { store } = recordingStore((token) => ({ kind: 'claimed', token, ...(held ? { heldOrderId: held } : {}) }));
    const service = createIdempotencyService(store);
    const seen: Array<number | undefined> = [];
    const place = service.useCase('orders.place', async (_caller, _input: object, claim) => {
      seen.push(claim.heldOrderId);
      expect('heldOrderId' in claim).toBe(claim.heldOrderId !== undefined);
      return 1;
    });
    await place(alice, {}, { idempotencyKey: 'k' });
    held = undefined;
    await place(alice, {}, { idempotencyKey: 'k' });
    expect(seen).toEqual([88, undefined]);
  });

  it('records the stock a claim holds, and stops the work when the claim was taken over', async () => {
    const { store, named } = recordingStore();
    const service = createIdempotencyService(store);
    const place = service.useCase('orders.place', async (_caller, _input: object, claim) => {
      await claim.hold(41);
      return 1;
    });
    await place(alice, {}, { idempotencyKey: 'k' });
    expect(named('hold').map(({ args }) => [args[0], args[1], args[3]])).toEqual([['user:7', 'k', 41]]);

    store.idempotency.hold = async () => false;
    await expect(place(alice, {}, { idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
  });
});

describe('a create whose work fails', () => {
  it('gives the key back at once for a refusal, so a retry runs again', async () => {
    const { store, named } = recordingStore();
    const service = createIdempotencyService(store);
    const refused = service.useCase('orders.place', failing(new DomainError('PRODUCT_NOT_FOUND', 'no product')));
    await expect(refused(alice, {}, { idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'PRODUCT_NOT_FOUND' });
    expect(named('abandon')).toHaveLength(1);
    expect(named('end')).toHaveLength(0);
  });

  it('gives the key back on the way out of a request out of budget', async () => {
    const { store, named } = recordingStore();
    const service = createIdempotencyService(store);
    const late = service.useCase('orders.place', failing(new DomainError('UPSTREAM_TIMEOUT', 'late')));
    await expect(late(alice, {}, { idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await settled();
    expect(named('abandon')).toHaveLength(1);
  });

  it('keeps the claim of a request whose database was lost, ends it, and lets the next request take it over', async () => {
    const { store, named } = recordingStore();
    const service = createIdempotencyService(store);
    const lost = service.useCase('orders.place', failing(new DomainError('DATABASE_UNAVAILABLE', 'gone')));
    await expect(lost(alice, {}, { idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    await settled();
    expect(named('abandon')).toHaveLength(0);
    const token = named('claim')[0]?.args[7];
    expect(named('end').map(({ args }) => args)).toEqual([['user:7', 'k', token]]);
    // The next claim of the key names the ended one, so that it is taken over at once.
    const retry = service.useCase('orders.place', async () => 1);
    await retry(alice, {}, { idempotencyKey: 'k' });
    expect(named('claim')[1]?.args[6]).toBe(token);
    // Once taken, the ended claim is forgotten: a third claim names none.
    await retry(alice, {}, { idempotencyKey: 'k' });
    expect(named('claim')[2]?.args[6]).toBeUndefined();
  });

  it('ends the claim when the database is lost while completing it', async () => {
    const { store, named, failures } = recordingStore();
    const service = createIdempotencyService(store);
    failures.complete = new DomainError('DATABASE_UNAVAILABLE', 'gone');
    const work = service.useCase('users.create', async () => 1);
    await expect(work(alice, {}, { idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(named('end')).toHaveLength(1);
    failures.complete = new Error('constraint');
    await expect(work(alice, {}, { idempotencyKey: 'j' })).rejects.toThrow('constraint');
    expect(named('end')).toHaveLength(1);
  });
});
