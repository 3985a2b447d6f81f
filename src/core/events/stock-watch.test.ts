import { describe, expect, it } from 'vitest';
import type { EventSubscriptions, InventoryStore } from '../ports/index.js';
import type { WatchedStock } from '../ports/inventory.js';
import type { StoredEvent } from '../shared/events.js';
import { createStockWatch, type StockUpdate } from './stock-watch.js';

/** A `stock.changed` event of `sku` with its `seq`, carrying the stock after the change. */
const change = (seq: number, sku: string, onHand: number, reserved = 0): StoredEvent => ({
  seq,
  id: `evt_${seq}`,
  type: 'stock.changed',
  createdAt: new Date('2026-11-26T10:00:00Z'),
  ownerUserId: null,
  subject: `sku:${sku}`,
  data: { object: { sku, onHand, reserved } } as never,
});

/** A watch over fixed stock (with the seq each shows) and a feed that hands over `feed` in that order. */
function watchOver(stocks: WatchedStock[], feed: StoredEvent[]) {
  const inventory = {
    watchedStock: async (sku: string) => stocks.find((watched) => watched.stock.sku === sku),
    watchedStocks: async (after: string) => stocks.filter((watched) => watched.stock.sku > after),
  } as unknown as InventoryStore;
  const events: EventSubscriptions = {
    async *subscribe() {
      yield* feed;
    },
  };
  return createStockWatch({ inventory, events, stillValid: async () => true });
}

async function collect(updates: AsyncIterable<StockUpdate>) {
  const messages: string[] = [];
  for await (const update of updates)
    messages.push(`${update.initial ? 'initial' : 'change'} ${update.stock.sku} ${update.stock.onHand}`);
  return messages;
}

describe('WatchStock never shows an older state after a newer one', () => {
  it('skips the changes the initial stock already shows, which the feed hands over late', async () => {
    // A: the initial read saw the change of seq 12 (onHand 15); the feed still hands over 11 and 12.
    const watch = watchOver(
      [{ stock: { sku: 'A', onHand: 15, reserved: 0 }, lastChangeSeq: 12 }],
      [change(11, 'A', 10), change(12, 'A', 15), change(13, 'A', 14)],
    );
    expect(await collect(watch('A', new AbortController().signal))).toEqual(['initial A 15', 'change A 14']);
  });

  it('skips a change of a SKU the feed hands over after a newer one of that SKU, per SKU', async () => {
    // The feed follows transactions in the order they began: 21 (begun later) can come before 20.
    const watch = watchOver(
      [
        { stock: { sku: 'A', onHand: 1, reserved: 0 }, lastChangeSeq: 0 },
        { stock: { sku: 'B', onHand: 2, reserved: 0 }, lastChangeSeq: 5 },
      ],
      [change(21, 'A', 3), change(20, 'A', 2), change(6, 'B', 7)],
    );
    expect(await collect(watch('', new AbortController().signal))).toEqual([
      'initial A 1',
      'initial B 2',
      'change A 3',
      'change B 7',
    ]);
  });
});
