import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TimeBudget } from './use-time-budget.js';

const codeOf = (reason: unknown) => (reason as { extensions?: { code?: string } }).extensions?.code;

describe('TimeBudget', () => {
  it('aborts the signal a create was given when the budget runs out', async () => {
    const budget = new TimeBudget(20);
    const { signal } = budget;
    expect(signal.aborted).toBe(false);
    await sleep(60);
    expect(signal.aborted).toBe(true);
    expect(codeOf(signal.reason)).toBe('TIMEOUT');
  });

  it('hands out an aborted signal once the budget has run out', async () => {
    const budget = new TimeBudget(10);
    await sleep(40);
    expect(budget.signal.aborted).toBe(true);
    expect(codeOf(budget.signal.reason)).toBe('TIMEOUT');
  });

  it('rejects a pending value with TIMEOUT, and lets one that settles in time through', async () => {
    const budget = new TimeBudget(30);
    expect(await budget.race(Promise.resolve('in time'))).toBe('in time');
    const late = budget.race(sleep(200).then(() => 'late'));
    await expect(late).rejects.toMatchObject({ extensions: { code: 'TIMEOUT' } });
  });

  it('aborts nothing once ended', async () => {
    const budget = new TimeBudget(10);
    const { signal } = budget;
    budget.end();
    await sleep(40);
    expect(signal.aborted).toBe(false);
    expect(budget.expired).toBeUndefined();
  });
});
