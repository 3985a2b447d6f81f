/**
 * Brownout windows: scheduling, their states, and orphans left by a retired item.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { type BrownoutService, type BrownoutWindow, createBrownoutService, windowState } from './brownouts.js';
