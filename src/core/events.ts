/** Events: what happened, in the one envelope of webhooks, GET /v1/events and the streams. */

/** Every event type. */
export const EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.canceled',
  'stock.changed',
  'deprecation.announced',
  'brownout.scheduled',
  'webhook_endpoint.disabled',
] as const;

/** An event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** An event to write: whose resource it concerns (`null`: admins only) and what it carries. */
export interface NewEvent {
  type: EventType;
  ownerUserId: number | null;
  subject: string;
  data: { object: unknown; changes?: string[] };
}

/** An event as stored: its id, its place in the feed and its time. */
export interface StoredEvent extends NewEvent {
  id: string;
  seq: number;
  createdAt: Date;
}

/** The envelope every channel sends. */
export function toEnvelope(event: StoredEvent) {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data };
}
