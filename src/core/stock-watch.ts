/**
 * Watching stock (`inventory.v1.Inventory/WatchStock`): the current stock of one SKU or of all, then each
 * committed change, read from the outbox's `stock.changed` events through the process's event feed.
 */
import { DomainError } from './errors.js';
import type { StoredEvent } from './events.js';
import type { Stock } from './model.js';
import type { EventSubscriptions, InventoryStore } from './ports/index.js';
import type { WatchedStock } from './ports/inventory.js';

/** One message of a watch: the stock as the watch found it (`initial`), or right after a change. */
export type StockUpdate =
  | { initial: true; stock: Stock }
  | { initial: false; stock: Stock; eventId: string; changedAt: Date };

/** SKUs read per page of the initial stock of a watch of every SKU. */
const INITIAL_PAGE = 500;

/** The stock a `stock.changed` event carries in `data.object` (the Stock as REST would show it). */
function stockOf(event: StoredEvent): Stock {
  const object = event.data.object as Partial<Stock>;
  return { sku: String(object.sku), onHand: Number(object.onHand), reserved: Number(object.reserved) };
}

/** Creates the watch over the stock store and the event feed. */
export function createStockWatch({ inventory, events }: { inventory: InventoryStore; events: EventSubscriptions }) {
  /**
   * The stock of `sku` (every SKU when empty) and then its changes, until `signal` aborts. The feed is
   * subscribed before the stock is read, so a change committed in between is not lost. Each message is the
   * whole stock, so a change must never arrive after a newer state: one SKU's changes take their `seq` in
   * commit order (./ports/inventory.ts), and a change whose `seq` is not above the last one this watch
   * showed of its SKU (the initial stock included) is already shown, and skipped. The feed can hand over an
   * older change late: it follows transactions in the order they began, and holds back commits behind an
   * older running transaction.
   */
  return async function* watchStock(sku: string, signal: AbortSignal): AsyncGenerator<StockUpdate> {
    if (sku.includes('\u0000')) throw new DomainError('VALIDATION_FAILED', 'sku must not contain a NUL character.');
    const changes = events.subscribe({ types: ['stock.changed'], ...(sku ? { subject: `sku:${sku}` } : {}) }, signal);
    /** The seq of the last change each SKU's last message showed. */
    const shown = new Map<string, number>();
    const initial = (watched: WatchedStock): StockUpdate => {
      shown.set(watched.stock.sku, watched.lastChangeSeq);
      return { initial: true, stock: watched.stock };
    };
    if (sku) {
      const watched = await inventory.watchedStock(sku);
      if (!watched) throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
      yield initial(watched);
    } else {
      let after = '';
      for (;;) {
        const page = await inventory.watchedStocks(after, INITIAL_PAGE);
        for (const watched of page) yield initial(watched);
        const last = page[page.length - 1];
        if (!last || page.length < INITIAL_PAGE) break;
        after = last.stock.sku;
      }
    }
    for await (const event of changes) {
      const stock = stockOf(event);
      if (event.seq <= (shown.get(stock.sku) ?? 0)) continue;
      shown.set(stock.sku, event.seq);
      yield { initial: false, stock, eventId: event.id, changedAt: event.createdAt };
    }
  };
}

/** Watches stock: see `createStockWatch`. */
export type StockWatch = ReturnType<typeof createStockWatch>;
