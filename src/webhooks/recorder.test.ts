import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../core/ports/webhooks.js';
import { createRecorder } from './recorder.js';

const outcome = (n: number) => ({ delivery: { id: n } }) as unknown as AttemptRecord;

/** A store whose writes wait for `finish`, so that a test decides when a batch is written. */
function slowStore(failures = 0) {
  const batches: number[][] = [];
  const waiting: Array<() => void> = [];
  let left = failures;
  return {
    batches,
    finish: () => {
      for (const go of waiting.splice(0)) go();
    },
    store: {
      async recordAll(attempts: readonly AttemptRecord[]) {
        batches.push(attempts.map((attempt) => attempt.delivery.id));
        await new Promise<void>((resolve) => waiting.push(resolve));
        if (left-- > 0) throw new Error('database down');
      },
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('attempt recorder', () => {
  it('writes the outcomes of one turn together, and those that end during a write in the next batch', async () => {
    const { store, batches, finish } = slowStore();
    const recorder = createRecorder(store, () => undefined);
    const written = [1, 2].map((n) => recorder.record(outcome(n)));
    await turn();
    written.push(recorder.record(outcome(3)), recorder.record(outcome(4)));
    await turn();
    expect(batches).toEqual([[1, 2]]);
    finish();
    await Promise.all(written.slice(0, 2));
    await turn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    finish();
    await Promise.all(written);
    await recorder.flushed();
  });

  it('reports a failed batch once and lets its attempts go (their leases will run out), then goes on', async () => {
    const { store, batches, finish } = slowStore(1);
    const errors: unknown[] = [];
    const recorder = createRecorder(store, (error) => errors.push(error));
    const first = [recorder.record(outcome(1)), recorder.record(outcome(2))];
    await turn();
    finish();
    await Promise.all(first);
    expect(errors).toHaveLength(1);
    const second = recorder.record(outcome(3));
    await turn();
    finish();
    await second;
    expect(batches).toEqual([[1, 2], [3]]);
    expect(errors).toHaveLength(1);
  });
});
