/**
 * A gRPC deadline is the server's to keep: the call is sent over raw HTTP/2 with a `grpc-timeout` header
 * and no deadline of the client's own, so DEADLINE_EXCEEDED can only come from the server, and the stock
 * is read after the work would have finished, so a write that landed anyway shows.
 */
import http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReserveRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { Caller } from '../../src/core/index.js';
import { createInventoryService } from '../../src/core/inventory/inventory.js';
import type { Store } from '../../src/core/ports/index.js';
import { inventoryService } from '../../src/grpc/inventory-service.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeProduct } from '../support/fixtures.js';
import { GRPC_HOSTS, serveInventory } from '../support/grpc-hosts.js';

/** How long the store takes before it starts a reservation: far past the call's deadline. */
const STORE_DELAY_MS = 300;

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let slowInventory: ReturnType<typeof createInventoryService>;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  // The real store, reached late: the deadline passes while the call is in the server's hands.
  const slowStore: Store = {
    ...database.store,
    inventory: {
      ...database.store.inventory,
      reserve: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, STORE_DELAY_MS));
        return database.store.inventory.reserve(...args);
      },
    },
  };
  slowInventory = createInventoryService(slowStore);
});
afterAll(async () => {
  await database?.close();
});

/** One unary gRPC call with only a `grpc-timeout` header; resolves with the grpc-status the server sent. */
function callWithTimeout(
  port: number,
  path: string,
  message: Uint8Array,
  timeout: string,
): Promise<{ status: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const started = Date.now();
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
      'grpc-timeout': timeout,
    });
    let status: string | undefined;
    const read = (headers: http2.IncomingHttpHeaders) => {
      const value = headers['grpc-status'];
      if (typeof value === 'string') status = value;
    };
    stream.on('response', read);
    stream.on('trailers', read);
    stream.on('data', () => {});
    stream.on('end', () => {
      session.close();
      resolve({ status: status ?? 'none', ms: Date.now() - started });
    });
    stream.on('error', reject);
    const frame = Buffer.alloc(5 + message.byteLength);
    frame.writeUInt32BE(message.byteLength, 1);
    frame.set(message, 5);
    stream.end(frame);
  });
}

describe.each(GRPC_HOSTS)('gRPC deadlines on the %s host', (host) => {
  let server: Awaited<ReturnType<typeof serveInventory>>;
  beforeAll(async () => {
    server = await serveInventory(host, inventoryService(slowInventory));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers DEADLINE_EXCEEDED itself when the deadline passes and commits nothing', async () => {
    const { sku } = await makeProduct(core, admin, 100, 10);
    const request = toBinary(
      ReserveRequestSchema,
      create(ReserveRequestSchema, { orderId: '770001', sku, quantity: 2 }),
    );
    const answer = await callWithTimeout(server.port, '/inventory.v1.Inventory/Reserve', request, '100m');
    // grpc-status 4 is DEADLINE_EXCEEDED; it came before the store even began.
    expect(answer.status).toBe('4');
    expect(answer.ms).toBeLessThan(STORE_DELAY_MS);
    // Wait until the delayed work has run its course: the reservation must not have landed.
    await new Promise((resolve) => setTimeout(resolve, STORE_DELAY_MS + 200));
    expect(await core.inventory.stock(sku)).toMatchObject({ onHand: 10, reserved: 0 });
  });

  it('commits a call that finishes within its deadline (the same path, with time to spare)', async () => {
    const { sku } = await makeProduct(core, admin, 100, 10);
    const request = toBinary(
      ReserveRequestSchema,
      create(ReserveRequestSchema, { orderId: '770002', sku, quantity: 2 }),
    );
    const answer = await callWithTimeout(server.port, '/inventory.v1.Inventory/Reserve', request, '5S');
    expect(answer.status).toBe('0');
    expect(await core.inventory.stock(sku)).toMatchObject({ onHand: 10, reserved: 2 });
  });
});
