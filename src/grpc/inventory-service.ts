import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type ConnectRouter, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  Inventory,
  type Reservation as ReservationMessage,
  ReservationSchema,
  ReservationState,
  type StockChange,
  StockChangeSchema,
  type Stock as StockMessage,
  StockSchema,
} from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { StockUpdate, StockWatch } from '../core/events/stock-watch.js';
import type { InventoryService, WriteOptions } from '../core/inventory/inventory.js';
import { DomainError } from '../core/shared/errors.js';
import type { Reservation, Stock } from '../core/shared/model.js';
import { keyCaller } from './auth.js';
import { toConnectError } from './errors.js';

const stateOf: Record<Reservation['state'], ReservationState> = {
  HELD: ReservationState.HELD,
  RELEASED: ReservationState.RELEASED,
  CONSUMED: ReservationState.CONSUMED,
};

const stockMessage = (stock: Stock): StockMessage =>
  create(StockSchema, {
    sku: stock.sku,
    onHand: stock.onHand,
    reserved: stock.reserved,
    available: stock.onHand - stock.reserved,
  });

const stockReply = (stock: Stock) => ({ stock: stockMessage(stock) });

const reservationMessage = (reservation: Reservation): ReservationMessage =>
  create(ReservationSchema, {
    orderId: String(reservation.orderId),
    sku: reservation.sku,
    quantity: reservation.quantity,
    state: stateOf[reservation.state],
    createdAt: timestampFromDate(reservation.createdAt),
    ...(reservation.expiresAt ? { expiresAt: timestampFromDate(reservation.expiresAt) } : {}),
  });

const stockChangeMessage = (update: StockUpdate): StockChange =>
  create(StockChangeSchema, {
    stock: stockMessage(update.stock),
    initial: update.initial,
    ...(update.initial ? {} : { eventId: update.eventId, changedAt: timestampFromDate(update.changedAt) }),
  });

/**
 * Runs one call of the core within the caller's deadline: a call that arrives already past it is refused,
 * and one that outlives it answers DEADLINE_EXCEEDED at once (the caller releases by compensation; what
 * the late work reserved expires). Every failure leaves through the one error mapping.
 */
function withinDeadline<T>(context: HandlerContext, work: (options: WriteOptions) => Promise<T>): Promise<T> {
  const timeLeft = context.timeoutMs();
  // Without a deadline the signal only aborts when the client has gone or the server is being forced down,
  // and nobody waits on it; it is read only by the work that needs it (writes), so a read makes none.
  if (timeLeft === undefined) return work(new SignalOnDemand(context)).catch(asCallError);
  if (timeLeft <= 0 || context.signal.aborted) return Promise.reject(deadlinePassed());
  const options: WriteOptions = { signal: context.signal, deadline: Date.now() + timeLeft };
  // With a deadline, answer the moment it passes even if the work is still running.
  return raceAbort(work(options), context.signal, deadlinePassed).catch(asCallError);
}

/** Write options whose signal is the call's, made only when read. */
class SignalOnDemand implements WriteOptions {
  constructor(private readonly context: HandlerContext) {}
  get signal(): AbortSignal {
    return this.context.signal;
  }
}

const deadlinePassed = () => new ConnectError('the deadline passed before the call finished', Code.DeadlineExceeded);

/** Every failure of a call as the one error mapping gives it; the core's upstream timeout is the deadline. */
function asCallError(error: unknown): never {
  if (error instanceof DomainError && error.code === 'UPSTREAM_TIMEOUT') throw deadlinePassed();
  throw toConnectError(error);
}

/** How close to its deadline a cancelled stream counts as timed out. */
const DEADLINE_SLACK_MS = 100;

/**
 * Why the caller's side of a stream ended. The caller's timer, started before the request left, fires a
 * moment before the server's and resets the stream: a cancellation that close to the deadline is the deadline.
 */
function endedBy(context: HandlerContext): ConnectError {
  const timeLeft = context.timeoutMs();
  if (timeLeft !== undefined && timeLeft <= DEADLINE_SLACK_MS) {
    return new ConnectError('the deadline passed', Code.DeadlineExceeded);
  }
  return ConnectError.from(context.signal.reason, Code.Canceled);
}

/** Settles with `work`, or rejects with `reason()` as soon as `signal` aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** What a watch of stock needs beside the inventory rules. */
export interface InventoryServiceOptions {
  /** Serves `WatchStock`; without it (the in-process transport of the order path) the rpc is UNIMPLEMENTED. */
  watchStock?: StockWatch;
  /** Aborts when the server starts draining: open watches then end with OK, so the drain need not wait. */
  draining?: AbortSignal;
}

/** `inventory.v1.Inventory` over the core's inventory rules: the one implementation both gRPC hosts run. */
export function inventoryService(
  inventory: InventoryService,
  { watchStock, draining }: InventoryServiceOptions = {},
): ServiceImpl<typeof Inventory> {
  return {
    reserve: (request, context) =>
      withinDeadline(context, async (options) => {
        const { reservation, stock, replayed } = await inventory.reserve(
          request.orderId,
          request.sku,
          request.quantity,
          options,
        );
        return { reservation: reservationMessage(reservation), stock: stockMessage(stock), replayed };
      }),
    reserveOrder: (request, context) =>
      withinDeadline(context, async (options) => {
        const lines = request.lines.map(({ sku, quantity }) => ({ sku, quantity }));
        const { reservations, stocks, replayed } = await inventory.reserveOrder(request.orderId, lines, options);
        return {
          reservations: reservations.map(reservationMessage),
          stocks: stocks.map(stockMessage),
          replayed,
        };
      }),
    release: (request, context) =>
      withinDeadline(context, async () => {
        return { reservations: (await inventory.release(request.orderId, request.sku)).map(reservationMessage) };
      }),
    getStock: (request, context) => withinDeadline(context, () => inventory.stock(request.sku).then(stockReply)),
    adjustStock: (request, context) =>
      withinDeadline(context, (options) => inventory.adjust(request.sku, request.delta, options).then(stockReply)),
    async *watchStock(request, context) {
      if (!watchStock) throw new ConnectError('WatchStock is not served on this transport', Code.Unimplemented);
      // The watch ends at the caller's deadline or cancellation (the context's signal) or at the drain.
      const signal = draining ? AbortSignal.any([context.signal, draining]) : context.signal;
      try {
        // A watch that names its caller by `x-api-key` delivers only while that key holds.
        const caller = context.values.get(keyCaller);
        for await (const update of watchStock(request.sku, signal, caller)) yield stockChangeMessage(update);
      } catch (error) {
        if (!signal.aborted) throw toConnectError(error);
      }
      // A drain ends the stream with OK; the caller's deadline or cancellation ends it as that (for metrics).
      if (context.signal.aborted && !draining?.aborted) throw endedBy(context);
    },
  };
}

/** Registers `inventory.v1.Inventory` on a connect router (the in-process transport of the order path). */
export function inventoryRoutes(inventory: InventoryService) {
  const implementation = inventoryService(inventory);
  return (router: ConnectRouter) => router.service(Inventory, implementation);
}
