/**
 * The language every room of the core speaks: the domain model, the error catalog, money and the wire's
 * two-decimal amounts, the order state machine, callers and scopes, cursors and paging, the event vocabulary,
 * read-only members, versions, UTC days, and the recorders' flush loop.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */

export { canonicalJson, dayOf, daysBefore } from '@order-api/contract-registry';
export { actingFor, type Caller, canSee, requireAdmin, requireCaller, unauthenticated } from './caller.js';
export { type CursorCodec, createCursorCodec, type KeyValues } from './cursor.js';
export { fromMinor, minorAtLeast } from './decimal-amounts.js';
export { DomainError, type ErrorCode, errorCatalog, invalidInput, userNotFound } from './errors.js';
export {
  type EventEnvelope,
  type EventFilter,
  type EventType,
  type NewEvent,
  readScopeOf,
  type StoredEvent,
} from './events.js';
export { mergePatch } from './merge-patch.js';
export type {
  Address,
  ApiKey,
  Cancellation,
  DraftItem,
  Order,
  OrderDraft,
  OrderHead,
  OrderItem,
  Product,
  Rating,
  Reservation,
  Role,
  Shipment,
  ShipmentStatus,
  Stock,
  User,
} from './model.js';
export { type Minor, minor, splitVat, sumMinor, timesMinor, type VatSplit } from './money.js';
export { isPaid, type OrderStatus, transition } from './order-state.js';
export {
  type ListInput,
  memberValue,
  type Page,
  pageInMemory,
  pageSize,
  parseSort,
  readPage,
  type SortKey,
} from './paging.js';
export { ORDER_READ_ONLY, refuseReadOnlyChanges, USER_READ_ONLY } from './read-only.js';
export { clientTable, flushLoop, utcDays } from './recorder-loop.js';
export { isScope, type Scope, scopesOfRole } from './scope-catalog.js';
export { insufficientScope, requireScope, scopesOf } from './scopes.js';
export { checkVersion, retryStale, type WriteConditions } from './versions.js';
export { type StillValid, whileKeyHolds } from './while-key-holds.js';
