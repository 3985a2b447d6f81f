import { randomUUID } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import { SPAWNED_ADMIN_KEY } from './spawned-server.js';

/** A load request that has no answer after this long is recorded as `TimeoutError`. */
const REQUEST_TIMEOUT_MS = 20_000;

/** Names each load request in its headers, so the moment fetch writes it to a connection can be told. */
const LOAD_ID_HEADER = 'x-load-id';

/** When each load request's headers were written to a connection, and whether that connection had served one. */
const written = new Map<string, { at: number; reused: boolean }>();
let writes = 0;
/** How many load requests fetch has written to a connection so far, in this process. */
export const loadRequestsWritten = () => writes;
const usedSockets = new WeakSet<object>();
diagnosticsChannel.subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: { headers: string | string[] }; socket: object };
  // A flat [name, value, …] list on Node 20, the raw header block on later undici versions.
  const { headers } = request;
  const at = Array.isArray(headers) ? headers.findIndex((name) => name.toLowerCase() === LOAD_ID_HEADER) : -1;
  const loadId = Array.isArray(headers)
    ? at >= 0
      ? headers[at + 1]
      : undefined
    : new RegExp(`^${LOAD_ID_HEADER}: *(\\S+)`, 'im').exec(headers)?.[1];
  if (loadId !== undefined) {
    written.set(loadId, { at: Date.now(), reused: usedSockets.has(socket) });
    writes += 1;
  }
  usedSockets.add(socket);
});

/** What one request of a load run ended with. */
export interface LoadOutcome {
  kind: 'order' | 'read';
  /** When the caller asked for it: fetch writes it to a connection a moment later, or never. */
  startedAt: number;
  /** When its headers were written to a connection (absent when none carried it). */
  sentAt?: number;
  /** Whether that connection had already carried a request, so the server had accepted it. */
  sentOnReusedConnection?: boolean;
  /** HTTP status, or the network error code when no answer came. */
  status?: number;
  error?: string;
  connectionClose?: boolean;
  orderId?: number;
  idempotencyKey?: string;
}

/** The network error code under fetch's `TypeError: fetch failed`. */
export function networkErrorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).name ?? String(error);
}

/** Creates what orders need on a fresh server: a customer with an address and a product with stock. */
export async function prepareOrders(httpUrl: string, stock = 1_000_000) {
  const headers = { authorization: `Bearer ${SPAWNED_ADMIN_KEY}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${httpUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: number; sku?: string };
  };
  const suffix = randomUUID().slice(0, 8);
  const user = await post('/v1/users', {
    name: 'Load Customer',
    email: `load-${suffix}@example.com`,
    address: { zipCode: '04524', line1: '1 Load Street' },
  });
  const product = await post('/v1/products', { name: 'Load Bean', sku: `LOAD-${suffix}`, price: 10, stock });
  return { userId: user.id, productId: product.id, sku: product.sku as string, headers };
}

/** Places one order (with an Idempotency-Key) or reads the product; records the outcome. */
export async function loadRequest(
  httpUrl: string,
  target: Awaited<ReturnType<typeof prepareOrders>>,
  kind: LoadOutcome['kind'],
  idempotencyKey = randomUUID(),
): Promise<LoadOutcome> {
  const startedAt = Date.now();
  const loadId = randomUUID();
  const sent = () => {
    const write = written.get(loadId);
    written.delete(loadId);
    return write === undefined ? {} : { sentAt: write.at, sentOnReusedConnection: write.reused };
  };
  try {
    const response =
      kind === 'order'
        ? await fetch(`${httpUrl}/v1/orders`, {
            method: 'POST',
            headers: { ...target.headers, 'idempotency-key': idempotencyKey, [LOAD_ID_HEADER]: loadId },
            body: JSON.stringify({ userId: target.userId, items: [{ productId: target.productId, quantity: 1 }] }),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          })
        : await fetch(`${httpUrl}/v1/products/${target.productId}`, {
            headers: { [LOAD_ID_HEADER]: loadId },
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
    const body = (await response.json()) as { id?: number };
    return {
      kind,
      startedAt,
      status: response.status,
      connectionClose: response.headers.get('connection') === 'close',
      ...(kind === 'order' && response.status === 201 ? { orderId: body.id as number } : {}),
      idempotencyKey,
      ...sent(),
    };
  } catch (error) {
    return { kind, startedAt, error: networkErrorCode(error), idempotencyKey, ...sent() };
  }
}
