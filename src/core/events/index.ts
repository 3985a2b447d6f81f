/**
 * Events and their delivery: what becomes an event (the event policy and the payload snapshots it writes
 * inside each change's transaction), the event list, webhooks and their targets, the order and stock
 * streams.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createEventList } from './event-list.js';
export { changedMembers } from './event-policy.js';
export { createWebhookService } from './webhook-endpoints.js';
export { createWebhookLimits } from './webhook-limits.js';
export type { ResolveHost } from './webhook-targets.js';
