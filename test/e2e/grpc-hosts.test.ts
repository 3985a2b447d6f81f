/**
 * What a wrapper or handler sets on the HandlerContext reaches the caller the same way from both hosts:
 * response headers and trailers, an error's code, message, metadata and ErrorInfo details; and what the
 * caller sends (metadata, deadline, cancellation) reaches the handler. Read by connect-node's gRPC client.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type HandlerContext } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { internalTokenWrapper } from '../../src/grpc/auth.js';
import { wrapService } from '../../src/grpc/service-wrappers.js';
import { GRPC_HOSTS, serveInventory } from '../support/grpc-hosts.js';

const TOKEN = 'hosts-test-token-0123456789abcdef';

/** The ConnectError a call failed with; a call that succeeds fails the test. */
const failure = (call: Promise<unknown>): Promise<ConnectError> =>
  call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: unknown) => ConnectError.from(error),
  );

describe.each(GRPC_HOSTS)('the %s host', (host) => {
  const seen: { timeoutMs?: number | undefined; header?: string | null; aborted?: Promise<unknown> } = {};
  let server: Awaited<ReturnType<typeof serveInventory>>;
  let client: ReturnType<typeof createClient<typeof Inventory>>;

  beforeAll(async () => {
    const implementation = wrapService(
      Inventory,
      {
        async getStock(request, context: HandlerContext) {
          seen.timeoutMs = context.timeoutMs();
          seen.header = context.requestHeader.get('x-caller');
          context.responseHeader.set('deprecation', '@1793491200');
          context.responseTrailer.set('x-trailer', 'done');
          if (request.sku === 'REFUSED') {
            const error = new ConnectError('refused during a brownout', Code.FailedPrecondition, undefined, [
              { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: 'BROWNOUT', domain: 'test' }) },
            ]);
            error.metadata.set('retry-after', '1500');
            throw error;
          }
          if (request.sku === 'SLOW') {
            seen.aborted = new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
            await seen.aborted;
          }
          return { stock: { sku: request.sku, onHand: 3 } };
        },
        reserve: async () => ({}),
        release: async () => ({}),
        adjustStock: async () => ({}),
      },
      [internalTokenWrapper(TOKEN)],
    );
    server = await serveInventory(host, implementation as never);
    client = createClient(Inventory, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const authorized = { authorization: `Bearer ${TOKEN}`, 'x-caller': 'stock-sync' };

  it('delivers the reply, the response headers and trailers; the handler reads metadata and the deadline', async () => {
    let headers: Headers | undefined;
    let trailers: Headers | undefined;
    const reply = await client.getStock(
      { sku: 'BEAN-1' },
      { headers: authorized, timeoutMs: 3000, onHeader: (h) => (headers = h), onTrailer: (t) => (trailers = t) },
    );
    expect(reply.stock).toMatchObject({ sku: 'BEAN-1', onHand: 3 });
    expect(headers?.get('deprecation')).toBe('@1793491200');
    expect(trailers?.get('x-trailer')).toBe('done');
    expect(seen.header).toBe('stock-sync');
    expect(seen.timeoutMs).toBeGreaterThan(2000);
    expect(seen.timeoutMs).toBeLessThanOrEqual(3000);
  });

  it('sends an error with its code, message, metadata and ErrorInfo details', async () => {
    const error = await failure(client.getStock({ sku: 'REFUSED' }, { headers: authorized }));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toBe('refused during a brownout');
    expect(error.findDetails(ErrorInfoSchema)).toMatchObject([{ reason: 'BROWNOUT', domain: 'test' }]);
    expect(error.metadata.get('retry-after')).toBe('1500');
  });

  it('runs the wrappers: a call without the token is UNAUTHENTICATED before the handler', async () => {
    seen.header = undefined;
    const error = await failure(client.getStock({ sku: 'BEAN-1' }));
    expect(error.code).toBe(Code.Unauthenticated);
    expect(seen.header).toBeUndefined();
  });

  it('aborts the handler signal when the caller cancels', async () => {
    const controller = new AbortController();
    const call = client.getStock({ sku: 'SLOW' }, { headers: authorized, signal: controller.signal }).catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    expect(ConnectError.from(await call).code).toBe(Code.Canceled);
    await expect(seen.aborted).resolves.toBeDefined();
  });
});
