import { describe, expect, it } from 'vitest';
import type { UsageCount, UsagePort } from './ports/usage.js';
import { createUsageRecorder } from './usage-recorder.js';

function memoryPort(failures = 0) {
  const batches: UsageCount[][] = [];
  let left = failures;
  const port: Pick<UsagePort, 'add'> = {
    async add(counts) {
      if (left-- > 0) throw new Error('database down');
      batches.push(counts.map((count) => ({ ...count })));
    },
  };
  return { port: port as UsagePort, batches };
}

const at = new Date('2026-11-23T10:00:00Z');

describe('usage recorder', () => {
  it('adds uses of the same item, caller, client and kind into one count per day', async () => {
    const { port, batches } = memoryPort();
    const recorder = createUsageRecorder({ port, instance: 'test', now: () => at });
    recorder.record({ item: 'rest.Order.amount', apiKeyId: 7, client: 'shop-web/3.2.1' });
    recorder.record({ item: 'rest.Order.amount', apiKeyId: 7, client: 'shop-web/3.2.1' });
    recorder.record({ item: 'rest.Order.amount', apiKeyId: 7, client: 'shop-web/3.2.1', kind: 'replacement' });
    recorder.record({ item: 'rest.Order.amount', apiKeyId: null, client: 'unknown' });
    await recorder.close();
    expect(batches[0]?.map(({ apiKeyId, kind, count, day }) => [apiKeyId, kind, count, day])).toEqual([
      [7, 'use', 2, '2026-11-23'],
      [7, 'replacement', 1, '2026-11-23'],
      [0, 'use', 1, '2026-11-23'],
    ]);
  });

  it('tells at most maxClientsPerKey clients of a key apart; the rest count as other', async () => {
    const { port, batches } = memoryPort();
    const recorder = createUsageRecorder({ port, instance: 'test', maxClientsPerKey: 2 });
    for (const client of ['a/1', 'b/1', 'c/1', 'd/1']) recorder.record({ item: 'x', apiKeyId: 1, client });
    await recorder.close();
    expect(batches[0]?.map((count) => [count.client, count.count])).toEqual([
      ['a/1', 1],
      ['b/1', 1],
      ['other', 2],
    ]);
  });

  it('starts the client cap afresh each day, so a new version of a client is told apart again', async () => {
    const { port, batches } = memoryPort();
    let now = new Date('2026-11-23T23:59:00Z');
    const recorder = createUsageRecorder({ port, instance: 'test', maxClientsPerKey: 1, now: () => now });
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/2' });
    now = new Date('2026-11-24T00:01:00Z');
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/2' });
    await recorder.close();
    expect(batches[0]?.map((count) => [count.day, count.client])).toEqual([
      ['2026-11-23', 'a/1'],
      ['2026-11-23', 'other'],
      ['2026-11-24', 'a/2'],
    ]);
  });

  it('holds at most maxEntries entries between flushes and counts what it drops', async () => {
    const { port, batches } = memoryPort();
    const recorder = createUsageRecorder({ port, instance: 'test', maxEntries: 3 });
    for (let key = 1; key <= 5; key++) recorder.record({ item: 'x', apiKeyId: key, client: 'a/1' });
    await recorder.close();
    expect(batches[0]).toHaveLength(3);
    expect(recorder.dropped).toBe(2);
  });

  it('keeps the counts of a failed flush for the next one', async () => {
    const { port, batches } = memoryPort(1);
    const errors: unknown[] = [];
    const recorder = createUsageRecorder({ port, instance: 'test', onError: (error) => errors.push(error) });
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    await recorder.flush();
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    await recorder.close();
    expect(errors).toHaveLength(1);
    expect(batches.map((batch) => batch.map((count) => count.count))).toEqual([[2]]);
  });
});
