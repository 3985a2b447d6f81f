/**
 * Every create runs once per Idempotency-Key (spec §6): claims, replays, and the budget of a placement.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export {
  type ClaimHold,
  claimTakenOver,
  createIdempotencyService,
  type IdempotencyService,
  type IdempotentCreate,
} from './idempotency.js';
export { placementBudget } from './placement-budget.js';
