import type { Core } from '../core/index.js';
import { cancellationJson, draftJson, orderItemJson, pageJson, shipmentJson } from './mappers.js';
import { createOptions, json, type RestHandlerGroup, replayHeader, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

/** What hangs off an order (items, shipment, cancellation) and order drafts. */
export function createOrderPartHandlers(core: Core) {
  return {
    async listOrderItems(request) {
      const page = await core.orders.itemPage(callerOf(request), pathId(request, 'orderId'), listInput(request.query));
      return json(request.c, 200, pageJson(page, orderItemJson));
    },

    async getOrderItem(request) {
      return json(
        request.c,
        200,
        orderItemJson(await core.orders.item(callerOf(request), pathId(request, 'orderItemId'))),
      );
    },

    async getShipment(request) {
      return json(
        request.c,
        200,
        shipmentJson(await core.orders.shipment(callerOf(request), pathId(request, 'orderId'))),
      );
    },

    async updateShipment(request) {
      const body = request.body as Schemas['ShipmentPatch'];
      const shipment = await core.orders.updateShipment(callerOf(request), pathId(request, 'orderId'), {
        ...('carrier' in body ? { carrier: body.carrier ?? null } : {}),
        ...('trackingNumber' in body ? { trackingNumber: body.trackingNumber ?? null } : {}),
      });
      return json(request.c, 200, shipmentJson(shipment));
    },

    async createCancellation(request) {
      const body = (request.body ?? {}) as Schemas['CancellationCreate'];
      const orderId = pathId(request, 'orderId');
      const input = { orderId, ...(body.reason ? { reason: body.reason } : {}) };
      const { result, replayed } = await core.orders.cancel(callerOf(request), input, createOptions(request));
      return json(request.c, 201, cancellationJson(result), {
        Location: `${request.base}/orders/${orderId}/cancellation`,
        ...replayHeader(replayed),
      });
    },

    async getCancellation(request) {
      return json(
        request.c,
        200,
        cancellationJson(await core.orders.cancellation(callerOf(request), pathId(request, 'orderId'))),
      );
    },

    async createOrderDraft(request) {
      const body = request.body as Schemas['OrderDraftCreate'];
      const input = {
        items: body.items.map(({ productId, quantity }) => ({ productId, quantity })),
        ...(body.userId !== undefined ? { userId: body.userId } : {}),
      };
      const { result, replayed } = await core.drafts.create(callerOf(request), input, createOptions(request));
      return json(request.c, 201, draftJson(result), {
        Location: `${request.base}/order-drafts/${result.id}`,
        ...replayHeader(replayed),
      });
    },

    async getOrderDraft(request) {
      return json(request.c, 200, draftJson(await core.drafts.get(callerOf(request), pathId(request, 'draftId'))));
    },
  } satisfies RestHandlerGroup;
}
