/**
 * Webhook deliveries as uses of deprecated and watched items (docs/events.md, "Deprecated events and
 * payload members"). A delivery uses its event type's item (a webhook of the contract, `{ on: 'event' }`)
 * and every payload member item its payload carries (a property of a schema the payload reaches, such as
 * `rest.Order.amount` in `data.object`). The caller is the endpoint's key with the client `webhooks`;
 * what a use is, is the one deprecation policy's rule (a receiver cannot leave a member out nor ask for
 * its replacement, so a carried item is a `use`). Each attempt carries the signals a REST answer would
 * (`Deprecation`, `Sunset`, `Link`), and the uses are counted once the receiver accepted an attempt (2xx):
 * once per accepted delivery, never for a failed attempt.
 *
 * Brownout windows do not touch deliveries: a payload is never trimmed nor an event held back (the event
 * log and reconciliation stay whole), so the policy sees no window here and the counts are plain uses.
 */

import { type EventItemIndex, type RegistryItem, signalOf } from '@order-api/contract-registry';
import type { EventEnvelope } from '../shared/index.js';
import { deprecatedUsagePath } from './deprecated-usage.js';
import { createDeprecationPolicy, type UsageCount } from './deprecation-policy.js';

export type { EventItemIndex } from '@order-api/contract-registry';

import type { UsageRecorder } from './usage/index.js';

/** The client name a delivery's uses are counted under. */
export const WEBHOOK_CLIENT = 'webhooks';

/** The registry items a delivery of this envelope carries: its type's, and the members present in it. */
export function carriedItems(index: EventItemIndex, envelope: Pick<EventEnvelope, 'type' | 'data'>): RegistryItem[] {
  const entry = index.get(envelope.type);
  if (!entry) return [];
  const carried = [...entry.event];
  for (const { item, paths } of entry.members) {
    if (paths.some((path) => present(envelope, path))) carried.push(item);
  }
  return carried;
}

/** What a delivery that carries registry items sends with each attempt, and how its use is counted. */
export interface DeliveryDeprecations {
  /** `Deprecation`, `Sunset` and `Link`, as on a REST answer; none when it carries only watched items. */
  headers: Record<string, string>;
  /** Counts the delivery's uses: called once, after the receiver accepted an attempt. */
  accepted(): void;
}

/** What deliveries are matched and counted with. */
export interface DeliveryDeprecationsDeps {
  index: EventItemIndex;
  /** Where uses are counted per caller: the recorder the transports use. */
  recorder?: Pick<UsageRecorder, 'record'> | undefined;
  /** Told of every count as well (the server's metrics). */
  onCount?: ((count: UsageCount) => void) | undefined;
  /** The path prefix of the key's own usage (`/v1`), linked as `rel="related"`. */
  usageBase: string;
  /** PUBLIC_BASE_URL: a receiver resolves a relative link against its own URL, so links are absolute when set. */
  publicBaseUrl?: string | undefined;
}

/** The deprecations of one delivery: its endpoint's key (null: anonymous) and its envelope. */
export type DeprecationsOfDelivery = (
  delivery: { endpoint: { apiKeyId: number | null } },
  envelope: EventEnvelope,
) => DeliveryDeprecations | undefined;

const NOTHING_ASKED: ReadonlySet<string> = new Set();
const NO_WINDOWS = { refusal: () => undefined, announced: () => [] };

/**
 * The deprecations of deliveries, over an index of the items events carry; undefined when no item touches
 * any event (the dispatcher then does nothing per delivery).
 */
export function createDeliveryDeprecations(deps: DeliveryDeprecationsDeps): DeprecationsOfDelivery | undefined {
  if (deps.index.size === 0) return undefined;
  const policy = createDeprecationPolicy({ brownouts: NO_WINDOWS, recorder: deps.recorder, onCount: deps.onCount });
  const origin = deps.publicBaseUrl ?? '';
  return function deprecationsOf(delivery, envelope) {
    const carried = carriedItems(deps.index, envelope);
    if (carried.length === 0) return undefined;
    const { apiKeyId } = delivery.endpoint;
    const decision = policy.decide(
      { apiKeyId: apiKeyId ?? 0, client: WEBHOOK_CLIENT },
      { sent: [], received: carried.map((item) => ({ item, carried: true, named: false })), asked: NOTHING_ASKED },
    );
    const usage = deprecatedUsagePath(apiKeyId, deps.usageBase);
    return {
      headers: deliverySignalHeaders(decision.signalled, usage && `${origin}${usage}`, origin),
      accepted: () => void policy.settle(decision, true),
    };
  };
}

/**
 * The signal headers of the deprecated items a delivery carries, in REST's form: `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594), `Link` to each item's reference entry (`rel="deprecation"`) and to the key's own
 * usage (`rel="related"`).
 */
export function deliverySignalHeaders(
  items: readonly RegistryItem[],
  usage: string | undefined,
  origin = '',
): Record<string, string> {
  const signal = signalOf([...items]);
  if (!signal) return {};
  const links = signal.links.map((link) => `<${origin}${link}>; rel="deprecation"; type="text/html"`);
  if (usage) links.push(`<${usage}>; rel="related"; type="application/json"`);
  return {
    ...(signal.deprecation ? { Deprecation: signal.deprecation } : {}),
    ...(signal.sunset ? { Sunset: signal.sunset } : {}),
    Link: links.join(', '),
  };
}

/** Whether a member at `path` is in the value (`*` = in any array item). */
function present(value: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return value !== undefined;
  if (value === null || typeof value !== 'object') return false;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') return Array.isArray(value) && value.some((entry) => present(entry, rest));
  return Object.hasOwn(value, head) && present((value as Record<string, unknown>)[head], rest);
}
