import { randomUUID } from 'node:crypto';
import { SPAWNED_ADMIN_KEY } from './spawned-server.js';

/** A load request that has no answer after this long is recorded as `TimeoutError`. */
const REQUEST_TIMEOUT_MS = 20_000;

/** What one request of a load run ended with. */
export interface LoadOutcome {
  kind: 'order' | 'read';
  startedAt: number;
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
  try {
    const response =
      kind === 'order'
        ? await fetch(`${httpUrl}/v1/orders`, {
            method: 'POST',
            headers: { ...target.headers, 'idempotency-key': idempotencyKey },
            body: JSON.stringify({ userId: target.userId, items: [{ productId: target.productId, quantity: 1 }] }),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          })
        : await fetch(`${httpUrl}/v1/products/${target.productId}`, {
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
    };
  } catch (error) {
    return { kind, startedAt, error: networkErrorCode(error), idempotencyKey };
  }
}
