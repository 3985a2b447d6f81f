import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { SERVED_BY } from './haproxy-config.js';

/** One request sent (an attempt: a retry is another attempt with the same key). */
export interface Attempt {
  kind: 'write' | 'read' | 'grpc';
  start: number;
  end: number;
  /** HTTP status, or the gRPC code's name. */
  status?: number | string;
  /** The network error, when no answer came. */
  error?: string;
  /** The instance HAProxy sent it to. */
  servedBy?: string;
  key?: string;
}

/** One order placement: its Idempotency-Key, its attempts and the order it was acknowledged with. */
export interface Placement {
  key: string;
  attempts: number;
  orderId?: number;
  /** Set when an attempt got an answer that no retry may fix (a 4xx other than 409 and 429). */
  refused?: string;
}

/** What the load places orders of and reserves through gRPC. */
export interface LoadTarget {
  httpUrl: string;
  grpcUrl: string;
  adminKey: string;
  userId: number;
  productId: number;
  orderSku: string;
  reserveSku: string;
}

/** What a load run recorded. */
export interface LoadRecord {
  attempts: Attempt[];
  placements: Placement[];
  /** The least `available` GetStock answered for the orders' SKU. */
  minAvailable: number;
}

const TIMEOUT_MS = 15_000;

/** Whether an answer to an order placement may be retried with the same key. */
const retryable = (status: number) => status === 409 || status === 429 || status >= 500;

/**
 * Closed-loop clients until `stop()` says so: `writers` place orders (each retried with its key until it
 * is acknowledged or `giveUpAt`), `readers` read acknowledged orders, `grpcCallers` alternate GetStock and
 * an idempotent Reserve through the h2c frontend.
 */
export async function runLoad(
  target: LoadTarget,
  mix: { writers: number; readers: number; grpcCallers: number },
  stop: () => boolean,
  giveUpAt: () => number,
  record: LoadRecord = { attempts: [], placements: [], minAvailable: Number.POSITIVE_INFINITY },
): Promise<LoadRecord> {
  const headers = { authorization: `Bearer ${target.adminKey}`, 'content-type': 'application/json' };
  const acknowledged: number[] = [];
  const send = async (kind: Attempt['kind'], path: string, init: RequestInit, key?: string) => {
    const attempt: Attempt = { kind, start: Date.now(), end: 0, ...(key ? { key } : {}) };
    record.attempts.push(attempt);
    try {
      const response = await fetch(`${target.httpUrl}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
      const body = (await response.json()) as { id?: number; code?: string };
      Object.assign(attempt, { status: response.status, servedBy: response.headers.get(SERVED_BY) ?? undefined });
      return { status: response.status, body };
    } catch (error) {
      attempt.error = String((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
      return undefined;
    } finally {
      attempt.end = Date.now();
    }
  };
  const place = async () => {
    const placement: Placement = { key: randomUUID(), attempts: 0 };
    record.placements.push(placement);
    const body = JSON.stringify({
      userId: target.userId,
      items: [{ productId: target.productId, quantity: 1 }],
      note: placement.key,
    });
    while (placement.orderId === undefined && Date.now() < giveUpAt()) {
      placement.attempts++;
      const answer = await send(
        'write',
        '/v1/orders',
        { method: 'POST', headers: { ...headers, 'idempotency-key': placement.key }, body },
        placement.key,
      );
      if (answer && answer.status < 300) {
        placement.orderId = answer.body.id as number;
        acknowledged.push(placement.orderId);
      } else if (answer && !retryable(answer.status)) {
        placement.refused = `${answer.status} ${answer.body.code}`;
        return;
      } else await sleep(answer?.status === 409 ? 250 : 100);
    }
  };
  const read = async () => {
    const id = acknowledged[Math.floor(Math.random() * acknowledged.length)];
    await send('read', id === undefined ? `/v1/products/${target.productId}` : `/v1/orders/${id}`, { headers });
  };
  const client = createClient(Inventory, createGrpcTransport({ baseUrl: target.grpcUrl }));
  const call = async (index: number) => {
    const attempt: Attempt = { kind: 'grpc', start: Date.now(), end: 0 };
    record.attempts.push(attempt);
    const options = {
      timeoutMs: TIMEOUT_MS,
      onHeader: (headers: Headers) => {
        attempt.servedBy = headers.get(SERVED_BY) ?? undefined;
      },
    };
    try {
      if (index % 2 === 0) {
        const reply = await client.getStock({ sku: target.orderSku }, options);
        record.minAvailable = Math.min(record.minAvailable, reply.stock?.available ?? Number.NaN);
      } else {
        await client.reserve({ orderId: '900000001', sku: target.reserveSku, quantity: 1 }, options);
      }
      attempt.status = 'OK';
    } catch (error) {
      const failure = ConnectError.from(error);
      attempt.status = Code[failure.code];
      attempt.error = failure.rawMessage;
    } finally {
      attempt.end = Date.now();
    }
  };
  const loop = async (step: (index: number) => Promise<void>) => {
    for (let index = 0; !stop(); index++) await step(index);
  };
  await Promise.all([
    ...Array.from({ length: mix.writers }, () => loop(place)),
    ...Array.from({ length: mix.readers }, () => loop(read)),
    ...Array.from({ length: mix.grpcCallers }, () => loop(call)),
  ]);
  return record;
}
