import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type ConnectRouter, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  Inventory,
  type Reservation as ReservationMessage,
  ReservationSchema,
  ReservationState,
  type Stock as StockMessage,
  StockSchema,
} from '../../generated/proto/inventory/v1/inventory_pb.js';
import { DomainError } from '../core/errors.js';
import type { InventoryService, WriteOptions } from '../core/inventory.js';
import type { Reservation, Stock } from '../core/model.js';
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

const reservationMessage = (reservation: Reservation): ReservationMessage =>
  create(ReservationSchema, {
    orderId: String(reservation.orderId),
    sku: reservation.sku,
    quantity: reservation.quantity,
    state: stateOf[reservation.state],
    createdAt: timestampFromDate(reservation.createdAt),
    ...(reservation.expiresAt ? { expiresAt: timestampFromDate(reservation.expiresAt) } : {}),
  });

/**
 * Runs one call of the core within the caller's deadline: a call that arrives already past it is refused,
 * and one that outlives it answers DEADLINE_EXCEEDED at once (the caller releases by compensation; what
 * the late work reserved expires). Every failure leaves through the one error mapping.
 */
async function withinDeadline<T>(context: HandlerContext, work: (options: WriteOptions) => Promise<T>): Promise<T> {
  const deadline = () => new ConnectError('the deadline passed before the call finished', Code.DeadlineExceeded);
  const timeLeft = context.timeoutMs();
  if (context.signal.aborted || (timeLeft !== undefined && timeLeft <= 0)) throw deadline();
  const options: WriteOptions = {
    signal: context.signal,
    ...(timeLeft === undefined ? {} : { deadline: Date.now() + timeLeft }),
  };
  try {
    // With a deadline, answer the moment it passes even if the work is still running; without one the
    // signal only aborts when the client has gone or the server is being forced down, and nobody waits.
    return await (timeLeft === undefined ? work(options) : raceAbort(work(options), context.signal, deadline));
  } catch (error) {
    if (error instanceof DomainError && error.code === 'UPSTREAM_TIMEOUT') throw deadline();
    throw toConnectError(error);
  }
}

/** Settles with `work`, or rejects with `reason()` as soon as `signal` aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `inventory.v1.Inventory` over the core's inventory rules: the one implementation both gRPC hosts run. */
export function inventoryService(inventory: InventoryService): ServiceImpl<typeof Inventory> {
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
    release: (request, context) =>
      withinDeadline(context, async () => ({
        reservations: (await inventory.release(request.orderId, request.sku)).map(reservationMessage),
      })),
    getStock: (request, context) =>
      withinDeadline(context, async () => ({ stock: stockMessage(await inventory.stock(request.sku)) })),
    adjustStock: (request, context) =>
      withinDeadline(context, async (options) => ({
        stock: stockMessage(await inventory.adjust(request.sku, request.delta, options)),
      })),
  };
}

/** Registers `inventory.v1.Inventory` on a connect router (the in-process transport of the order path). */
export function inventoryRoutes(inventory: InventoryService) {
  const implementation = inventoryService(inventory);
  return (router: ConnectRouter) => router.service(Inventory, implementation);
}
