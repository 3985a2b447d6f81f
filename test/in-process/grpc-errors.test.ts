import { createClient, createRouterTransport } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { inventoryRoutes } from '../../src/grpc/inventory-service.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeProduct } from '../support/fixtures.js';

// The Inventory service's routes called in process, with no socket; over the wire, see test/e2e/grpc.test.ts.
let database: TestDatabase;
let core: TestCore;
let sku: string;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  const admin = await makeAdmin(database.store);
  ({ sku } = await makeProduct(core, admin, 89, 10, 'Grinder'));
});
afterAll(async () => {
  await database?.close();
});

describe('in-process, through createRouterTransport', () => {
  it('maps errors with an ErrorInfo carrying the catalog code', async () => {
    const transport = createRouterTransport(inventoryRoutes(core.inventory));
    const inProcess = createClient(Inventory, transport);
    const reply = await inProcess.getStock({ sku });
    expect(reply.stock?.sku).toBe(sku);
    const error = await inProcess.reserve({ orderId: '7030', sku, quantity: 10_000 }).catch((e) => e);
    expect(error.findDetails(ErrorInfoSchema)[0]).toMatchObject({ reason: 'INSUFFICIENT_STOCK' });
  });
});
