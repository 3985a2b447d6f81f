import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createRateLimiter } from './rate-limiter.js';

const logger = pino({ level: 'silent' });
const budget = (quota: number) => ({ subject: `key:${randomBytes(4).toString('hex')}`, quota });

/**
 * A limiter of its own on a clock of its own (moved by `advance`), and a caller no other test charges:
 * each test starts from a full budget at the same instant, whatever ran before it.
 */
function memoryBudget(quota: number) {
  let clock = 1_000_000;
  const limiter = createRateLimiter({ windowSeconds: 10, logger, now: () => clock });
  const bucket = budget(quota);
  return {
    charge: (points: number) => limiter.charge(bucket, points),
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the in-memory budget refills continuously', () => {
  it('spends a full budget at once, then lets one point through per refilled point', async () => {
    const tenPerTenSeconds = memoryBudget(10);
    for (let spent = 1; spent <= 10; spent++) {
      const charge = await tenPerTenSeconds.charge(1);
      expect(charge).toMatchObject({ allowed: true, remaining: 10 - spent });
    }
    const refused = await tenPerTenSeconds.charge(1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 10, retryAfterSeconds: 1 });

    // Half a point back: still refused. A whole point back: exactly one request passes.
    tenPerTenSeconds.advance(500);
    expect((await tenPerTenSeconds.charge(1)).allowed).toBe(false);
    tenPerTenSeconds.advance(500);
    expect(await tenPerTenSeconds.charge(1)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await tenPerTenSeconds.charge(1)).allowed).toBe(false);
  });

  it('tells a refused charge when its own cost is back, and takes nothing for it', async () => {
    const tenPerTenSeconds = memoryBudget(10);
    expect(await tenPerTenSeconds.charge(10)).toMatchObject({ allowed: true, remaining: 0 });
    tenPerTenSeconds.advance(3_000);
    const refused = await tenPerTenSeconds.charge(5);
    expect(refused).toMatchObject({ allowed: false, remaining: 3, retryAfterSeconds: 2 });
    expect(await tenPerTenSeconds.charge(3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('never holds more than the quota, however long the caller was idle', async () => {
    const tenPerTenSeconds = memoryBudget(10);
    expect(await tenPerTenSeconds.charge(10)).toMatchObject({ allowed: true, remaining: 0 });
    tenPerTenSeconds.advance(3_600_000);
    expect(await tenPerTenSeconds.charge(1)).toMatchObject({ allowed: true, remaining: 9, resetSeconds: 1 });
  });

  it('refuses a charge larger than the whole budget, pointing a window ahead', async () => {
    const small = memoryBudget(3);
    expect(await small.charge(4)).toMatchObject({ allowed: false, remaining: 3, retryAfterSeconds: 10 });
    expect((await small.charge(3)).allowed).toBe(true);
  });
});

const redisUrl = process.env.REDIS_TEST_URL;

describe.skipIf(!redisUrl)('the Redis budget (REDIS_TEST_URL)', () => {
  /** A limiter on Redis under this test's own key prefix (closed when the test ends). */
  const open = (keyPrefix: string) => {
    const limiter = createRateLimiter({ windowSeconds: 2, logger, redisUrl, keyPrefix });
    onTestFinished(() => limiter.close());
    return limiter;
  };

  it('is one budget for every instance, refilled continuously on the server clock', async () => {
    // Redis keeps the clock here: the test's own keys start from a full budget on it.
    const keyPrefix = `test-gcra-${randomBytes(6).toString('hex')}`;
    const [first, second] = [open(keyPrefix), open(keyPrefix)];
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
