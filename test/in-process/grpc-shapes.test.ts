/**
 * What the gRPC shape wrapper records of a call (docs/decisions.md §13): the method, the codec, the fields set
 * at every depth, and the caller, where the Order API's own inventory client (it sends
 * `user-agent: order-api/inventory-client`, test/e2e/grpc.test.ts) is labelled `(own) …`, not counted as
 * an anonymous caller.
 */
import { create, type DescMethod, type Message } from '@bufbuild/protobuf';
import { createHandlerContext } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { Inventory, ReserveOrderRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { OWN_USER_AGENT, shapeWrapper } from '../../src/grpc/shape-wrapper.js';
import { clientOf } from '../../src/observability/metrics.js';

/** Calls `ReserveOrder` through the wrapper with these headers; returns what it recorded. */
async function recordedCall(headers: Record<string, string>, request: Message) {
  const recorded: Array<{ client: string; apiKeyId: number; shapes: readonly string[] }> = [];
  const method = Inventory.method.reserveOrder as DescMethod;
  const call = shapeWrapper((caller, shapes) => recorded.push({ ...caller, shapes }), clientOf)(
    method,
    async () => ({}) as Message,
  );
  const context = createHandlerContext({
    service: Inventory,
    method,
    protocolName: 'grpc',
    requestMethod: 'POST',
    url: 'http://localhost/inventory.v1.Inventory/ReserveOrder',
    requestHeader: headers,
  });
  await call(request, context);
  return recorded;
}

const reserveOrder = create(ReserveOrderRequestSchema, { orderId: '12', lines: [{ sku: 'A-1', quantity: 2 }] });

describe('the gRPC request-shape record', () => {
  it("labels the product's own inventory client as its own", async () => {
    const [own] = await recordedCall(
      { 'user-agent': OWN_USER_AGENT, 'content-type': 'application/grpc' },
      reserveOrder,
    );
    expect(own?.client).toBe('(own) order-api/inventory-client');
    const [other] = await recordedCall(
      { 'user-agent': 'stock-sync/2.0', 'content-type': 'application/grpc' },
      reserveOrder,
    );
    expect(other?.client).toBe('stock-sync/2.0');
  });

  it('records the method, the codec and the fields set at every depth, never a value', async () => {
    const [binary] = await recordedCall({ 'content-type': 'application/grpc' }, reserveOrder);
    expect(binary?.shapes).toEqual([
      'inventory.v1.Inventory/ReserveOrder',
      'inventory.v1.Inventory/ReserveOrder codec:binary',
      'inventory.v1.ReserveOrderRequest.order_id',
      'inventory.v1.ReserveOrderRequest.lines',
      'inventory.v1.ReserveLine.sku',
      'inventory.v1.ReserveLine.quantity',
    ]);
    const [json] = await recordedCall({ 'content-type': 'application/grpc+json' }, reserveOrder);
    expect(json?.shapes).toContain('inventory.v1.Inventory/ReserveOrder codec:json');
    expect(JSON.stringify(binary)).not.toMatch(/A-1|"12"/);
  });
});
