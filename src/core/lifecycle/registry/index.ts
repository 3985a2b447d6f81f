/**
 * The deprecated and watched items of the contracts (generated/deprecations.json) and their lookups.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { type DeprecationRegistry, type RegistryItem, signalOf } from './deprecation-registry.js';
