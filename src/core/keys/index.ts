/**
 * API keys: their rules, the key check of each request, rotation, readable keys, and the rate budget's rules.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createApiKeyService } from './api-keys.js';
export { ownKeyId, requireOwnUser, requireReadableKey } from './readable-key.js';
