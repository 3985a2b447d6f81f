import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { createClient, type HandlerContext } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerReflection } from '../../generated/proto/grpc/reflection/v1/reflection_pb.js';
import { Inventory, ReserveReplySchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { createGrpcServer } from '../../src/grpc/create-grpc-server.js';
import type { RunningServer } from '../../src/main.js';
import { contractClient, type ProblemBody } from '../support/client.js';
import { type GrpcClient, grpcClient } from '../support/grpc-client.js';
import { GRPC_HOSTS } from '../support/grpc-hosts.js';
import { startTestServer } from '../support/server.js';
import { until } from '../support/until.js';

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'grpc-test-admin-key-0123456789';
const TOKEN = 'internal-token-0123456789abcdef';

// Every call below runs against both hosts of the internal port (GRPC_SERVER): the answers must not differ.
describe.each(GRPC_HOSTS)('on the %s host', (host) => {
  let server: RunningServer;
  /** An independent client: @grpc/grpc-js loading a .proto file, as another team's service would. */
  let client: GrpcClient;
  let sku: string;

  beforeAll(async () => {
    server = await startTestServer({
      ADMIN_API_KEY: ADMIN_KEY,
      SEED_DEMO: 'false',
      INTERNAL_TOKEN: TOKEN,
      GRPC_SERVER: host,
    });
    client = grpcClient({ address: server.grpcUrl, token: TOKEN });
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    sku = `GRPC-${Date.now()}`;
    await admin.POST('/v1/products', { body: { name: 'Grinder', sku, price: 89, stock: 10 } });
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  describe('inventory.v1.Inventory over gRPC', () => {
    it('reserves idempotently per (order, sku) and reports stock', async () => {
      const first = await client.reply<{ replayed: boolean; stock: { available: number } }>('Reserve', {
        orderId: '7001',
        sku,
        quantity: 2,
      });
      expect(first).toMatchObject({ replayed: false, stock: { onHand: 10, reserved: 2, available: 8 } });
      expect(first).toMatchObject({
        reservation: { orderId: '7001', sku, quantity: 2, state: 'RESERVATION_STATE_HELD' },
      });
      const retry = await client.reply('Reserve', { orderId: '7001', sku, quantity: 2 });
      expect(retry).toMatchObject({ replayed: true });
      expect(await client.reply('GetStock', { sku })).toMatchObject({ stock: { reserved: 2 } });
    });

    it('answers the documented status codes', async () => {
      const status = (method: string, request: object) =>
        client.reply(method, request).then(
          () => 'OK',
          (error: grpc.ServiceError) => grpc.status[error.code],
        );
      expect(await status('Reserve', { orderId: '7001', sku, quantity: 3 })).toBe('FAILED_PRECONDITION');
      expect(await status('Reserve', { orderId: '7002', sku, quantity: 100 })).toBe('FAILED_PRECONDITION');
      expect(await status('Reserve', { orderId: '', sku, quantity: 1 })).toBe('INVALID_ARGUMENT');
      expect(await status('Reserve', { orderId: '7003', sku, quantity: 0 })).toBe('INVALID_ARGUMENT');
      expect(await status('Reserve', { orderId: '7003', sku: 'NO-SUCH', quantity: 1 })).toBe('NOT_FOUND');
      expect(await status('GetStock', { sku: 'NO-SUCH' })).toBe('NOT_FOUND');
      expect(await status('Release', { orderId: '7999', sku })).toBe('NOT_FOUND');
      expect(await status('AdjustStock', { sku, delta: -9 })).toBe('FAILED_PRECONDITION');
      // DEADLINE_EXCEEDED is proven in grpc-deadline.test.ts, where no client-side deadline can answer for the server.
      const noToken = grpcClient({ address: server.grpcUrl });
      try {
        expect((await noToken.call('GetStock', { sku })).code).toBe(grpc.status.UNAUTHENTICATED);
      } finally {
        noToken.close();
      }
    });

    it('releases idempotently and adjusts on-hand stock', async () => {
      await client.reply('Reserve', { orderId: '7010', sku, quantity: 1 });
      const released = await client.reply<{ reservations: Array<{ state: string }> }>('Release', {
        orderId: '7010',
        sku,
      });
      expect(released.reservations).toEqual([expect.objectContaining({ state: 'RESERVATION_STATE_RELEASED' })]);
      const again = await client.reply<{ reservations: Array<{ state: string }> }>('Release', { orderId: '7010', sku });
      expect(again.reservations).toEqual([expect.objectContaining({ state: 'RESERVATION_STATE_RELEASED' })]);
      const adjusted = await client.reply<{ stock: { onHand: number } }>('AdjustStock', {
        sku,
        delta: 5,
        reason: 'restock',
      });
      expect(adjusted.stock.onHand).toBe(15);
    });

    it('ignores retired field 2 and unknown fields; an old client without sku gets INVALID_ARGUMENT', async () => {
      const writer = protobuf.Writer.create();
      writer.uint32((1 << 3) | 2).string('7020'); // order_id
      writer.uint32((2 << 3) | 2).string('legacy-item-9'); // retired item_id
      writer.uint32((3 << 3) | 0).int32(1); // quantity
      writer.uint32((4 << 3) | 2).string(sku); // sku
      writer.uint32((99 << 3) | 0).int32(42); // a field number this revision does not know
      const raw = await client.raw('/inventory.v1.Inventory/Reserve', Buffer.from(writer.finish()));
      expect(raw).toMatchObject({ code: grpc.status.OK });
      const reply = fromBinary(ReserveReplySchema, raw.reply as Buffer);
      expect(reply.reservation).toMatchObject({ orderId: '7020', sku, quantity: 1 });

      const old = grpcClient({
        address: server.grpcUrl,
        protoRoot: path.join(root, 'test/fixtures/proto/revision-1'),
        token: TOKEN,
      });
      try {
        const error = await old
          .reply('Reserve', { orderId: '7021', itemId: 'legacy-item-9', quantity: 1 })
          .catch((e) => e);
        expect(error).toMatchObject({
          code: grpc.status.INVALID_ARGUMENT,
          details: 'sku value is required.',
        });
      } finally {
        old.close();
      }
    });

    it('answers garbage bytes with a clean error and keeps serving', async () => {
      const outcome = await client.raw('/inventory.v1.Inventory/Reserve', Buffer.from([0xff, 0xff, 0xff, 0x0f, 0x01]));
      // As grpc-go and grpc-java do, an undecodable message is INTERNAL; the message names the cause, no internals.
      expect(outcome.code).toBe(grpc.status.INTERNAL);
      expect(outcome.details).toMatch(/parse binary/i);
      expect(outcome.details).not.toMatch(/\bat \S+:\d+/);
      await expect(client.reply('GetStock', { sku })).resolves.toMatchObject({ stock: { sku } });
    });

    it('keeps health open without the token', async () => {
      const health = grpcClient({
        address: server.grpcUrl,
        proto: 'grpc/health/v1/health.proto',
        service: 'grpc.health.v1.Health',
      });
      try {
        const reply = await health.reply('Check', { service: 'inventory.v1.Inventory' });
        expect(reply).toEqual({ status: 'SERVING' });
      } finally {
        health.close();
      }
    });
  });

  describe('server reflection', () => {
    it('lists the services and serves their descriptors, for buf curl and grpcurl', async () => {
      const transport = createGrpcTransport({ baseUrl: server.grpcUrl });
      const reflection = createClient(ServerReflection, transport);
      async function* requests() {
        yield { messageRequest: { case: 'listServices' as const, value: '' } };
        yield { messageRequest: { case: 'fileContainingSymbol' as const, value: 'inventory.v1.Inventory.Reserve' } };
        yield { messageRequest: { case: 'fileByFilename' as const, value: 'no/such.proto' } };
      }
      const answers = [];
      for await (const answer of reflection.serverReflectionInfo(requests())) answers.push(answer.messageResponse);
      expect(answers[0]).toMatchObject({ case: 'listServicesResponse' });
      const [listed, declared, missing] = answers;
      const names = (listed?.value as { service: Array<{ name: string }> } | undefined)?.service
        .map((s) => s.name)
        .sort();
      expect(names).toEqual(['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'inventory.v1.Inventory']);
      const protos = (declared?.value as { fileDescriptorProto: Uint8Array[] } | undefined)?.fileDescriptorProto.map(
        (bytes) => fromBinary(FileDescriptorProtoSchema, bytes),
      );
      const files = protos?.map((proto) => proto.name);
      // Each file names its imports, and every file imported is returned too: a client (buf curl, grpcurl)
      // builds them together and fails on a type whose import is not declared or not sent
      // ("failed to find service named inventory.v1.Inventory in schema").
      expect(protos?.find((proto) => proto.name === 'inventory/v1/inventory.proto')?.dependency).toEqual(
        expect.arrayContaining(['buf/validate/validate.proto', 'google/protobuf/timestamp.proto']),
      );
      const unresolved = protos?.flatMap((proto) => proto.dependency.filter((name) => !files?.includes(name)));
      expect(unresolved).toEqual([]);
      // The file and its imports; their order differs between hosts (@grpc/reflection puts the file first)
      // and reflection clients build one pool of them, so the order is not asserted.
      expect(files).toEqual(
        expect.arrayContaining([
          'inventory/v1/inventory.proto',
          'google/protobuf/timestamp.proto',
          'buf/validate/validate.proto',
        ]),
      );
      expect(missing).toMatchObject({ case: 'errorResponse', value: { errorCode: 5 } });
    });
  });
});

describe('deadlines from the REST edge', () => {
  it('answers 503 INVENTORY_UNAVAILABLE, writing nothing, when the remote Inventory cannot be reached', async () => {
    const closed = createGrpcServer({ routes: () => undefined });
    const { port } = await closed.listen(0, '127.0.0.1');
    await closed.close();
    const edge = await startTestServer({
      ADMIN_API_KEY: ADMIN_KEY,
      SEED_DEMO: 'false',
      INVENTORY_URL: `http://127.0.0.1:${port}`,
    });
    try {
      const admin = contractClient(edge.httpUrl, ADMIN_KEY);
      const product = await admin.POST('/v1/products', { body: { name: 'Away', sku: 'AWAY-1', price: 1, stock: 5 } });
      const me = await admin.GET('/v1/users/me');
      const { response, error } = await admin.POST('/v1/orders', {
        body: {
          userId: me.data?.id as number,
          items: [{ productId: product.data?.id as number, quantity: 1 }],
          shippingAddress: { zipCode: '1', line1: 'x' },
        },
      });
      expect(response.status).toBe(503);
      expect((error as ProblemBody).code).toBe('INVENTORY_UNAVAILABLE');
      expect((await admin.GET('/v1/orders', { params: { query: { withTotal: true } } })).data?.totalCount).toBe(0);
    } finally {
      await edge.close();
    }
  });

  it('passes the remaining budget to a remote Inventory and answers 504 with nothing left behind', async () => {
    const seen: { timeoutMs?: number; released: string[]; userAgent?: string | null } = { released: [] };
    // It serves Reserve and not ReserveOrder, as a server of the release before ReserveOrder does: the
    // order path falls back to one Reserve per line, with the same budget.
    const slow = createGrpcServer({
      routes: (router) =>
        router.service(Inventory, {
          async reserve(_request, context: HandlerContext) {
            seen.timeoutMs = context.timeoutMs();
            seen.userAgent = context.requestHeader.get('user-agent');
            await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
            throw context.signal.reason;
          },
          async release(request) {
            seen.released.push(request.orderId);
            return { reservations: [] };
          },
          getStock: async () => ({}),
          adjustStock: async () => ({}),
        }),
    });
    const slowAddress = await slow.listen(0, '127.0.0.1');
    const edge = await startTestServer({
      ADMIN_API_KEY: ADMIN_KEY,
      SEED_DEMO: 'false',
      REQUEST_TIMEOUT_MS: '400',
      INVENTORY_URL: `http://127.0.0.1:${slowAddress.port}`,
    });
    try {
      const admin = contractClient(edge.httpUrl, ADMIN_KEY);
      const product = await admin.POST('/v1/products', { body: { name: 'Slow', sku: 'SLOW-1', price: 1, stock: 5 } });
      const me = await admin.GET('/v1/users/me');
      const started = Date.now();
      const { response, error } = await admin.POST('/v1/orders', {
        body: {
          userId: me.data?.id as number,
          items: [{ productId: product.data?.id as number, quantity: 1 }],
          shippingAddress: { zipCode: '1', line1: 'x' },
        },
      });
      expect(response.status).toBe(504);
      expect((error as ProblemBody).code).toBe('UPSTREAM_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(seen.timeoutMs).toBeGreaterThan(0);
      expect(seen.timeoutMs).toBeLessThanOrEqual(400);
      // It names itself, so the request-shape record labels its calls as the product's own.
      expect(seen.userAgent).toMatch(/^order-api\/inventory-client\b/);
      // Answered at the deadline; the release goes out right after, not left to the reservation's expiry.
      await until(() => (seen.released.length > 0 ? true : undefined), 2_000);
      expect(seen.released).toHaveLength(1);
      const orders = await admin.GET('/v1/orders', { params: { query: { withTotal: true } } });
      expect(orders.data?.totalCount).toBe(0);
    } finally {
      await edge.close();
      await slow.close();
    }
  });
});
