/**
 * Users and their profiles.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createUserService } from './users.js';
