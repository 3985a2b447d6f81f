import {
  type Client,
  Code,
  ConnectError,
  createClient,
  createRouterTransport,
  type Transport,
} from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { Tracer } from '@opentelemetry/api';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { InventoryService } from '../core/inventory/inventory.js';
import type { CallOptions, InventoryPort } from '../core/ports/index.js';
import { internalTokenInterceptor } from './auth.js';
import { fromConnectError } from './errors.js';
import { validateRequests } from './input-rules.js';
import { inventoryService } from './inventory-service.js';
import { wrapService } from './service-wrappers.js';
import { OWN_USER_AGENT } from './shape-wrapper.js';
import { continueTraces, traceClientCalls } from './trace-interceptors.js';

/** Reserves lines one call each, in SKU order (`Reserve`): the way before `ReserveOrder`. */
async function reserveEach(
  client: Client<typeof Inventory>,
  orderId: string,
  lines: ReadonlyArray<{ sku: string; quantity: number }>,
  options: Parameters<Client<typeof Inventory>['reserve']>[1],
): Promise<void> {
  for (const line of [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0))) {
    await client.reserve({ orderId, sku: line.sku, quantity: line.quantity }, options);
  }
}

/** Where the Inventory service is: in this process (default) or at a URL. */
export interface InventoryClientOptions {
  url?: string;
  token?: string;
  /** When tracing is on: each call is a client span, its context carried in `traceparent`. */
  tracer?: Tracer;
}

/** The inventory port backed by a Connect client, with what must be closed on shutdown. */
export interface InventoryClient extends InventoryPort {
  close(): void;
}

/**
 * The order path's client of `inventory.v1.Inventory`. In-process it runs over a router transport
 * (the same handlers, interceptors and error mapping, no socket); with a URL it speaks gRPC over HTTP/2.
 * Each call carries the caller's remaining time as its deadline and the caller's abort signal.
 */
export function createInventoryClient(service: InventoryService, options: InventoryClientOptions): InventoryClient {
  const { tracer } = options;
  const served = options.token ? [internalTokenInterceptor(options.token)] : [];
  const calling = tracer ? [traceClientCalls(tracer)] : [];
  let sessions: Http2SessionManager | undefined;
  let transport: Transport;
  if (options.url) {
    sessions = new Http2SessionManager(options.url);
    transport = createGrpcTransport({ baseUrl: options.url, sessionManager: sessions, interceptors: calling });
  } else {
    const wrappers = [...(tracer ? [continueTraces(tracer)] : []), validateRequests];
    const implementation = wrapService(Inventory, inventoryService(service), wrappers);
    transport = createRouterTransport((router) => router.service(Inventory, implementation), {
      router: { interceptors: served },
      transport: { interceptors: calling },
    });
  }
  const client: Client<typeof Inventory> = createClient(Inventory, transport);
  // Named as the product's own client, so the request-shape record labels these calls as its own.
  const headers = {
    'user-agent': OWN_USER_AGENT,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
  const callOptions = (options: CallOptions) => ({
    ...(options.timeoutMs !== undefined ? { timeoutMs: Math.max(1, options.timeoutMs) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    headers,
  });

  return {
    async reserveOrder(request, options) {
      try {
        const lines = request.lines.map(({ sku, quantity }) => ({ sku, quantity }));
        await client.reserveOrder({ orderId: request.orderId, lines }, callOptions(options)).catch((error: unknown) => {
          if (ConnectError.from(error).code !== Code.Unimplemented) throw error;
          // A server of an older release (a rolling deploy) has no ReserveOrder: one Reserve per line, in SKU
          // order; the caller releases them all if one fails.
          return reserveEach(client, request.orderId, lines, callOptions(options));
        });
      } catch (error) {
        throw fromConnectError(error);
      }
    },
    async release(request, options) {
      try {
        await client.release({ orderId: request.orderId, sku: request.sku ?? '' }, callOptions(options));
      } catch (error) {
        const mapped = fromConnectError(error);
        // Nothing held for the order is what a release wants.
        if ((mapped as { code?: string }).code === 'RESERVATION_NOT_FOUND') return;
        throw mapped;
      }
    },
    close() {
      sessions?.abort();
    },
  };
}
