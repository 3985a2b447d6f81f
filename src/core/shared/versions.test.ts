import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { checkVersion, retryStale } from './versions.js';

const stale = () => new DomainError('PRECONDITION_FAILED', 'changed');

/** An attempt that loses the race `losses` times, then succeeds; counts its calls. */
function racing(losses: number) {
  let calls = 0;
  const attempt = async () => {
    calls++;
    if (calls <= losses) throw stale();
    return 'written';
  };
  return { attempt, calls: () => calls };
}

describe('writes that lose a race', () => {
  it('are recomputed from fresh state when the caller gave no If-Match', async () => {
    const race = racing(2);
    await expect(retryStale(undefined, race.attempt)).resolves.toBe('written');
    expect(race.calls()).toBe(3);
  });

  it('keep retrying past a count of rounds, as 20 concurrent writers need', async () => {
    const race = racing(19);
    await expect(retryStale(undefined, race.attempt)).resolves.toBe('written');
    expect(race.calls()).toBe(20);
  });

  it('give up once their time budget is spent', async () => {
    const race = racing(Number.POSITIVE_INFINITY);
    // A budget a stalled event loop (a collection, a busy CI machine) cannot spend before the second try.
    await expect(retryStale(undefined, race.attempt, 250)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(race.calls()).toBeGreaterThan(1);
  });

  it('answer PRECONDITION_FAILED at once when the caller pinned a version', async () => {
    const race = racing(1);
    await expect(retryStale(4, race.attempt)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(race.calls()).toBe(1);
  });

  it('are not retried for other failures', async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new DomainError('INVALID_TRANSITION', 'no');
    };
    await expect(retryStale(undefined, failing)).rejects.toMatchObject({ code: 'INVALID_TRANSITION' });
    expect(calls).toBe(1);
  });
});

describe('If-Match versions', () => {
  it('pass when absent or equal, and fail otherwise', () => {
    expect(() => checkVersion({ version: 3 }, undefined, stale)).not.toThrow();
    expect(() => checkVersion({ version: 3 }, 3, stale)).not.toThrow();
    expect(() => checkVersion({ version: 3 }, 2, stale)).toThrow(DomainError);
  });
});
