import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';

const logger = pino({ level: 'silent' });
const budget = (quota: number) => ({ subject: `key:${randomBytes(4).toString('hex')}`, quota });

describe('the in-memory budget refills continuously', () => {
  let clock = 1_000_000;
  const limiter = createRateLimiter({ windowSeconds: 10, logger, now: () => clock });
  const tenPerTenSeconds = budget(10);

  it('spends a full budget at once, then lets one point through per refilled point', async () => {
    for (let spent = 1; spent <= 10; spent++) {
      const charge = await limiter.charge(tenPerTenSeconds, 1);
      expect(charge).toMatchObject({ allowed: true, remaining: 10 - spent });
    }
    const refused = await limiter.charge(tenPerTenSeconds, 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 10, retryAfterSeconds: 1 });

    // Half a point back: still refused. A whole point back: exactly one request passes.
    clock += 500;
    expect((await limiter.charge(tenPerTenSeconds, 1)).allowed).toBe(false);
    clock += 500;
    expect(await limiter.charge(tenPerTenSeconds, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.charge(tenPerTenSeconds, 1)).allowed).toBe(false);
  });

  it('tells a refused charge when its own cost is back, and takes nothing for it', async () => {
    clock += 3_000;
    const refused = await limiter.charge(tenPerTenSeconds, 5);
    expect(refused).toMatchObject({ allowed: false, remaining: 3, retryAfterSeconds: 2 });
    expect(await limiter.charge(tenPerTenSeconds, 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('never holds more than the quota, however long the caller was idle', async () => {
    clock += 3_600_000;
    expect(await limiter.charge(tenPerTenSeconds, 1)).toMatchObject({ allowed: true, remaining: 9, resetSeconds: 1 });
  });

  it('refuses a charge larger than the whole budget, pointing a window ahead', async () => {
    const small = budget(3);
    expect(await limiter.charge(small, 4)).toMatchObject({ allowed: false, remaining: 3, retryAfterSeconds: 10 });
    expect((await limiter.charge(small, 3)).allowed).toBe(true);
  });
});

const redisUrl = process.env.REDIS_TEST_URL;

describe.skipIf(!redisUrl)('the Redis budget (REDIS_TEST_URL)', () => {
  const keyPrefix = `test-gcra-${randomBytes(6).toString('hex')}`;
  const limiters: RateLimiter[] = [];
  const open = () => {
    const limiter = createRateLimiter({ windowSeconds: 2, logger, redisUrl, keyPrefix });
    limiters.push(limiter);
    return limiter;
  };
  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
  });

  it('is one budget for every instance, refilled continuously on the server clock', async () => {
    const [first, second] = [open(), open()];
    await expect.poll(() => first.mode() === 'redis' && second.mode() === 'redis').toBe(true);
    const shared = budget(4); // one point per 500 ms
    const outcomes: boolean[] = [];
    for (const limiter of [first, second, first, second, first])
      outcomes.push((await limiter.charge(shared, 1)).allowed);
    expect(outcomes).toEqual([true, true, true, true, false]);

    const refused = await second.charge(shared, 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
    await sleep(600);
    expect(await second.charge(shared, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await first.charge(shared, 1)).allowed).toBe(false);
  });
});
