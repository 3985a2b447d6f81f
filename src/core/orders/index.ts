/**
 * Orders: placement (with its inventory reservation), reads and filters, changes (status, shipment,
 * cancellation, the writable members) and drafts.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createDraftService } from './drafts.js';
export { createOrderService } from './orders.js';
