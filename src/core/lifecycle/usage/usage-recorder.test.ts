import { describe, expect, it } from 'vitest';
import type { UsageCount, UsageDrop, UsageFlush, UsagePort } from '../../ports/usage.js';
import { createUsageRecorder } from './usage-recorder.js';

function memoryPort(failures = 0) {
  const batches: UsageCount[][] = [];
  const flushes: UsageFlush[] = [];
  const registered: Array<{ instance: string; at: Date }> = [];
  let left = failures;
  const port: Pick<UsagePort, 'add' | 'register'> = {
    async add(counts, flush) {
      if (left-- > 0) throw new Error('database down');
      batches.push(counts.map((count) => ({ ...count })));
      flushes.push({ ...flush, dropped: flush.dropped?.map((drop) => ({ ...drop })) ?? [] });
    },
    async register(instance) {
      registered.push(instance);
    },
  };
  return { port: port as UsagePort, batches, flushes, registered };
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

  it('reports every dropped use and writes the drops with the flush, per item and day', async () => {
    const { port, batches, flushes } = memoryPort();
    let now = new Date('2026-11-23T23:59:00Z');
    const reported: UsageDrop[] = [];
    const recorder = createUsageRecorder({
      port,
      instance: 'test',
      maxEntries: 1,
      now: () => now,
      onDropped: (drop) => reported.push(drop),
    });
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    recorder.record({ item: 'x', apiKeyId: 2, client: 'a/1' });
    recorder.record({ item: 'x', apiKeyId: 2, client: 'a/1' });
    recorder.record({ item: 'y', apiKeyId: 3, client: 'a/1' });
    now = new Date('2026-11-24T00:01:00Z');
    recorder.record({ item: 'x', apiKeyId: 4, client: 'a/1' });
    await recorder.flush();
    // The buffer was emptied by the flush: nothing is dropped now, and the next flush carries no drops.
    recorder.record({ item: 'y', apiKeyId: 3, client: 'a/1' });
    await recorder.close();
    expect(reported).toEqual([
      { item: 'x', day: '2026-11-23', count: 1 },
      { item: 'x', day: '2026-11-23', count: 1 },
      { item: 'y', day: '2026-11-23', count: 1 },
      { item: 'x', day: '2026-11-24', count: 1 },
    ]);
    expect(recorder.dropped).toBe(4);
    expect(batches.map((batch) => batch.map((count) => [count.item, count.apiKeyId]))).toEqual([
      [['x', 1]],
      [['y', 3]],
    ]);
    expect(flushes.map((flush) => flush.dropped)).toEqual([
      [
        { item: 'x', day: '2026-11-23', count: 2 },
        { item: 'y', day: '2026-11-23', count: 1 },
        { item: 'x', day: '2026-11-24', count: 1 },
      ],
      [],
    ]);
  });

  it('keeps the drops of a failed flush for the next one', async () => {
    const { port, flushes } = memoryPort(1);
    const recorder = createUsageRecorder({ port, instance: 'test', maxEntries: 1, now: () => at });
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    recorder.record({ item: 'x', apiKeyId: 2, client: 'a/1' });
    await recorder.flush();
    recorder.record({ item: 'x', apiKeyId: 3, client: 'a/1' });
    await recorder.close();
    // The failed flush's entry went back into the buffer; the third use found it full.
    expect(flushes.map((flush) => flush.dropped)).toEqual([[{ item: 'x', day: '2026-11-23', count: 2 }]]);
  });

  it('registers the instance, and notes with each flush the days it completes, up to midnight and past it', async () => {
    const { port, flushes, registered } = memoryPort(1);
    let now = new Date('2026-11-23T23:59:58Z');
    const recorder = createUsageRecorder({ port, instance: 'web-1', now: () => now, onError: () => undefined });
    await recorder.register();
    expect(registered).toEqual([{ instance: 'web-1', at: now }]);
    // The first flush fails; the next one, two days later, completes every day since the registration.
    now = new Date('2026-11-24T00:00:03Z');
    await recorder.flush();
    now = new Date('2026-11-25T10:00:00Z');
    await recorder.flush();
    await recorder.flush();
    expect(flushes.map((flush) => [flush.instance, flush.days])).toEqual([
      ['web-1', ['2026-11-23', '2026-11-24', '2026-11-25']],
      ['web-1', ['2026-11-25']],
    ]);
    await recorder.close();
  });

  it('throws a failed registration, and flushes after it all the same', async () => {
    const { port, flushes } = memoryPort();
    port.register = async () => {
      throw new Error('database down');
    };
    const recorder = createUsageRecorder({ port, instance: 'test', now: () => at });
    await expect(recorder.register()).rejects.toThrow('database down');
    recorder.record({ item: 'x', apiKeyId: 1, client: 'a/1' });
    await recorder.close();
    expect(flushes.map((flush) => flush.days)).toEqual([['2026-11-23']]);
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
