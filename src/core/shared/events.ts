/**
 * Events (docs/events.md): what changed, as one envelope for webhooks, GraphQL subscriptions and gRPC
 * streams. The rows are written by the store in the transaction of the change that causes them.
 */

/** The event types of the contract's `webhooks:` section. */
export const EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.canceled',
  'stock.changed',
  'deprecation.announced',
  'brownout.scheduled',
  'webhook_endpoint.disabled',
] as const;

/** One of the contract's event types. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The scope a key needs to receive an event of this type (its payload carries an order for `order.*`);
 * none for the others. Decided here once: endpoint registration and the outbox's fan-out both ask it.
 */
export function readScopeOf(type: EventType): 'orders:read' | null {
  return type.startsWith('order.') ? 'orders:read' : null;
}

/** Whether a string names an event type of the contract. */
export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** What the payload of an event carries: the resource as published, and what changed (for updates). */
export interface EventData {
  object: Record<string, unknown>;
  /** The members that changed (`order.updated`). */
  changes?: string[];
}

/** An event before it is stored. */
export interface NewEvent {
  type: EventType;
  /** The user whose resource changed; null: visible to admins only. */
  ownerUserId: number | null;
  /** What the event is about, as `kind:key` (`order:42`, `sku:ABC-1`): streams of one thing filter on it. */
  subject: string;
  data: EventData;
}

/** An event as stored in the outbox: ordered by `seq`, published by `id`. */
export interface StoredEvent extends NewEvent {
  seq: number;
  id: string;
  createdAt: Date;
}

/** The wire envelope of an event (webhooks, `GET /v1/events`). */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: string;
  data: EventData;
}

/** The envelope every channel sends. */
export function toEnvelope(event: StoredEvent): EventEnvelope {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data };
}

/** Which events a reader wants: its type, subject and visibility; unset members match everything. */
export interface EventFilter {
  types?: readonly EventType[];
  subject?: string;
  /** Only events of this user's resources (a customer); undefined: all (an admin). */
  ownerUserId?: number;
}

/** Whether an event passes a filter (the same rule as the store's SQL for reads after a seq). */
export function matchesFilter(event: NewEvent, filter: EventFilter): boolean {
  if (filter.types && !filter.types.includes(event.type)) return false;
  if (filter.subject !== undefined && event.subject !== filter.subject) return false;
  if (filter.ownerUserId !== undefined && event.ownerUserId !== filter.ownerUserId) return false;
  return true;
}
