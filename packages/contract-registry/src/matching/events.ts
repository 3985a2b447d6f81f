/**
 * Which registry items each event type's deliveries can carry (src/core/lifecycle/event-deprecations.ts): the
 * event type's own item (its webhook, `{ on: 'event' }`) and the properties its payload schema reaches
 * (`OrderEvent` → `data.object` → `Order.amount`), with where they sit in the envelope. Read from the
 * registry and the contract's `webhooks:` once, at start, following the schemas as the REST matcher does.
 */

import type { DeprecationRegistry, RegistryItem } from '../registry.js';
import type { EventItemIndex, EventTypeItems, PayloadMember } from '../uses.js';
import { atPointer } from './json-pointer.js';
import { reachability } from './rest.js';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Whether any item of the registry can be carried by a delivery (else the contract need not be read). */
export function registryTouchesEvents(registry: DeprecationRegistry): boolean {
  return registry.items.some((item) => item.protocol === 'rest' && ['event', 'property'].includes(item.match.on));
}

/** Indexes the registry's event types and payload members by event type. */
export function eventItemIndex(registry: DeprecationRegistry, document: Json): EventItemIndex {
  const index = new Map<string, EventTypeItems>();
  if (!registryTouchesEvents(registry)) return index;
  const rest = registry.items.filter((item) => item.protocol === 'rest');
  const reach = reachability(rest, document);
  for (const [type, pathItem] of Object.entries((document.webhooks ?? {}) as Record<string, Json>)) {
    const event = rest.filter((item) => item.match.on === 'event' && item.match.type === type);
    const members = new Map<RegistryItem, PayloadMember & { paths: string[][] }>();
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      if (!operation) continue;
      const body = resolved((operation.requestBody ?? {}) as Json, document);
      for (const media of Object.values((body.content ?? {}) as Record<string, Json>)) {
        for (const { item, path } of reach.reachable((media.schema ?? {}) as Json)) {
          const known = members.get(item);
          if (!known) members.set(item, { item, paths: [path] });
          else if (!known.paths.some((seen) => seen.join('.') === path.join('.'))) known.paths.push(path);
        }
      }
    }
    if (event.length > 0 || members.size > 0) index.set(type, { event, members: [...members.values()] });
  }
  return index;
}

const resolved = (node: Json, document: Json): Json =>
  typeof node.$ref === 'string' ? (atPointer(document, node.$ref) as Json) : node;
