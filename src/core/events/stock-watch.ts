/**
 * Watching stock (`inventory.v1.Inventory/WatchStock`): the current stock of one SKU or of all, then each
 * committed change, read from the outbox's `stock.changed` events through the process's event feed.
 */

import type { EventSubscriptions, InventoryStore, WatchedStock } from '../ports/index.js';
import type { Caller, Stock, StoredEvent } from '../shared/index.js';
import { DomainError, type StillValid, whileKeyHolds } from '../shared/index.js';

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

/** What watching stock needs. */
export interface StockWatchOptions {
  inventory: InventoryStore;
  events: EventSubscriptions;
  /** Whether a caller's key still holds (the key check's); re-checked while a watch that names one delivers. */
  stillValid: StillValid;
  /** How often an open watch re-checks its caller's key between changes (default 1 s). */
  recheckMs?: number;
}

/** Creates the watch over the stock store and the event feed. */
export function createStockWatch({ inventory, events, stillValid, recheckMs }: StockWatchOptions) {
  /**
   * The stock of `sku` (every SKU when empty) and then its changes, until `signal` aborts. The feed is
   * subscribed before the stock is read, so a change committed in between is not lost. Each message is the
   * whole stock, so a change must never arrive after a newer state: one SKU's changes take their `seq` in
   * commit order (./ports/inventory.ts), and a change whose `seq` is not above the last one this watch
   * showed of its SKU (the initial stock included) is already shown, and skipped. The feed can hand over an
   * older change late: it follows transactions in the order they began, and holds back commits behind an
   * older running transaction.
   */
  async function* watch(sku: string, signal: AbortSignal): AsyncGenerator<StockUpdate> {
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
  }
  /**
   * A watch (see `watch`). One whose call named a caller by an issued key delivers only while that key
   * holds (`whileKeyHolds`): once it expired, was revoked or was rotated out, the watch ends with
   * UNAUTHENTICATED. Without one (the internal token alone) there is no key to re-check.
   */
  return function watchStock(sku: string, signal: AbortSignal, caller?: Caller): AsyncGenerator<StockUpdate> {
    if (!caller) return watch(sku, signal);
    return whileKeyHolds(caller, stillValid, signal, (held) => watch(sku, held), recheckMs);
  };
}

/** Watches stock: see `createStockWatch`. */
export type StockWatch = ReturnType<typeof createStockWatch>;
