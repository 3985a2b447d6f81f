/**
 * What a request or a delivery used, as the matchers collect it and the deprecation policy reads it: the
 * registry items sent, the ones an answer carries, and the payload members an event type can carry.
 */
import type { RegistryItem } from './registry.js';

/** A registry item the answer to a request carries or could carry. */
export interface ReceivedItem {
  item: RegistryItem;
  /** Whether the answer carries it (false when the request left it out, as REST's `fields=` does). */
  carried: boolean;
  /** Whether the request named the item itself (a GraphQL selection, a REST `fields=` entry). */
  named: boolean;
}

/** What one request used, as its transport collected it. */
export interface RequestUses {
  /** Items the request sent or called: its operation or rpc, parameters, body members, arguments, fields. */
  sent: readonly RegistryItem[];
  /** Response properties or fields its answer carries or could carry. */
  received: readonly ReceivedItem[];
  /**
   * Members the request asked for by name (REST `include=` and `fields=`, GraphQL selections as
   * `Type.field`): an item whose replacement is among them is read as a replacement use.
   */
  asked: ReadonlySet<string>;
}

/** A payload member item and where it sits in the envelope (`*` = each array item). */
export interface PayloadMember {
  item: RegistryItem;
  paths: ReadonlyArray<readonly string[]>;
}

/** The registry items deliveries of one event type can carry. */
export interface EventTypeItems {
  /** The event type itself (its webhook), when deprecated or watched. */
  event: readonly RegistryItem[];
  /** The payload members that are deprecated or watched. */
  members: readonly PayloadMember[];
}

/** By event type; a type that no item touches is absent, and deliveries of it cost nothing. */
export type EventItemIndex = ReadonlyMap<string, EventTypeItems>;
