import path from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ReserveRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The first revision's ReserveRequest, loaded by an independent protobuf implementation. */
async function revisionOneReserveRequest(): Promise<protobuf.Type> {
  const loader = new protobuf.Root();
  loader.resolvePath = (_origin, target) =>
    target.startsWith('google/protobuf/') ? target : path.join(root, 'test/fixtures/proto/revision-1', target);
  const loaded = await loader.load('inventory/v1/inventory.proto', { keepCase: true });
  return loaded.lookupType('inventory.v1.ReserveRequest');
}

describe('ReserveRequest across revisions (docs/decisions.md §6 compatibility rules)', () => {
  it('decodes a first-revision message with item_id into the current message, field 2 ignored', async () => {
    const OldReserveRequest = await revisionOneReserveRequest();
    const bytes = OldReserveRequest.encode({ order_id: '42', item_id: 'item-7', quantity: 3 }).finish();

    const current = fromBinary(ReserveRequestSchema, bytes);

    expect(current.orderId).toBe('42');
    expect(current.quantity).toBe(3);
    expect(current.sku).toBe('');
    expect(Object.keys(current)).not.toContain('itemId');
  });

  it('lets a first-revision reader decode a current message, ignoring the unknown sku (field 4)', async () => {
    const OldReserveRequest = await revisionOneReserveRequest();
    const bytes = toBinary(
      ReserveRequestSchema,
      create(ReserveRequestSchema, { orderId: '42', quantity: 3, sku: 'SKU-1' }),
    );

    const old = OldReserveRequest.toObject(OldReserveRequest.decode(bytes));

    expect(old).toEqual({ order_id: '42', quantity: 3 });
  });

  it('keeps field number 2 and the name item_id reserved in the current contract', () => {
    const reserved = ReserveRequestSchema.proto.reservedRange.map((range) => [range.start, range.end]);
    expect(reserved).toContainEqual([2, 3]);
    expect(ReserveRequestSchema.proto.reservedName).toContain('item_id');
    expect(ReserveRequestSchema.fields.map((field) => field.number)).toEqual([1, 3, 4]);
  });
});
