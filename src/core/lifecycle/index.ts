/**
 * The retirement lifecycle of the contracts' items (spec §9): the deprecation report and policy, who still
 * uses what, the signed usage export, and the rooms it is built from (registry, usage, brownouts, notices,
 * shapes, evidence).
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createAdminLists } from './admin-lists.js';
export { createDeprecatedUsageService } from './deprecated-usage.js';
export { createDeprecationService } from './deprecations.js';
