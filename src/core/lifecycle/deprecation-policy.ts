/**
 * The one deprecation policy of the three interfaces (docs/decisions.md §7). A transport collects what a
 * request used — the operation or rpc, the parameters, body members, arguments and request fields it sent,
 * the response properties or fields its answer would carry and the members it asked for by name — and
 * this policy decides, the same way for REST, GraphQL and gRPC:
 * - what each item's use is: a `use`, a `replacement` use (the caller asked for the item's replacement
 *   and did not name the item itself), or a `brownout` hit (the item is in a running window and the
 *   caller would have used it);
 * - which items refuse the request (a sent item in a running window: removing it would break the
 *   request) and which are withheld from the answer (a received item in a running window: its removal
 *   would leave it out, for every caller whose answer carries it);
 * - which deprecated items the caller gets the signals for (its uses only, never a caller that moved or
 *   left the item out), and what is counted for whom.
 * The transports only apply the decision in their wire form.
 */

import type { ReceivedItem, RegistryItem, RequestUses } from '@order-api/contract-registry';
import type { UsageCaller, UsageKind } from '../ports/index.js';
import type { DomainError } from '../shared/index.js';
import type { BrownoutService, BrownoutWindow } from './brownouts/index.js';
import type { UsageRecorder } from './usage/index.js';

export type { ReceivedItem, RequestUses } from '@order-api/contract-registry';
export type { UsageCaller } from '../ports/index.js';

/** One count to record: the item, what the use was. */
export interface UsageCount {
  item: RegistryItem;
  kind: UsageKind;
}

/** What the policy decided for a request before it runs. */
export interface DeprecationDecision {
  /** Sent items in a running window: the request is refused (in the transport's wire form). */
  refused: RegistryItem[];
  /**
   * The refusal to answer with when `refused` is not empty: the catalog's `BROWNOUT` error, and what is
   * refused — the `operation` (an operation or rpc is gone) or an `input` the request sent (a
   * parameter, body member, argument or request field is gone; the request could be sent without it).
   */
  refusal: { error: DomainError; retryAfterSeconds: number; scope: 'operation' | 'input' } | undefined;
  /** Received items in a running window: left out of the answer, as their removal would. */
  withheld: RegistryItem[];
  /** The deprecated items the caller uses: they get the deprecation signals. */
  signalled: RegistryItem[];
  /** What the request's sending counts (recorded at once). */
  sentCounts: UsageCount[];
  /** What the answer counts, recorded by `settle` only if the answer was delivered. */
  receivedCounts: UsageCount[];
  caller: UsageCaller;
}

/** What the policy needs. */
export interface DeprecationPolicyDeps {
  brownouts: Pick<BrownoutService, 'refusal' | 'announced'>;
  /** Where uses are counted per caller (none: counted nowhere, as in tests about signals only). */
  recorder?: Pick<UsageRecorder, 'record'> | undefined;
  /** Told of every count as well (the server's metrics). */
  onCount?: ((count: UsageCount) => void) | undefined;
}

/** The deprecation policy: decide before a request runs, settle once its answer is known. */
export type DeprecationPolicy = ReturnType<typeof createDeprecationPolicy>;

const NOTHING: DeprecationDecision = Object.freeze({
  refused: [],
  refusal: undefined,
  withheld: [],
  signalled: [],
  sentCounts: [],
  receivedCounts: [],
  caller: { apiKeyId: 0, client: '' },
}) as DeprecationDecision;

/** Creates the policy over the brownout windows and a sink for the counts. */
export function createDeprecationPolicy({ brownouts, recorder, onCount }: DeprecationPolicyDeps) {
  const sink = (count: UsageCount, { apiKeyId, client }: UsageCaller) => {
    onCount?.(count);
    recorder?.record({ item: count.item.id, apiKeyId, client, kind: count.kind });
  };
  return {
    /**
     * Decides what a request's uses are, before it runs. The counts of what it sent are recorded now (a
     * refused request was still an attempt to use the item); the counts of its answer wait for `settle`.
     */
    decide(caller: UsageCaller, { sent, received, asked }: RequestUses): DeprecationDecision {
      if (sent.length === 0 && received.length === 0) return NOTHING;
      const running = brownouts.refusal([...sent, ...received.map((entry) => entry.item)].map((item) => item.id));
      // By id: the windows' registry and the transport's matchers may hold copies of the same item.
      const blockedIds = new Set(running?.blocked.map((item) => item.id));
      const inWindow = { has: (item: RegistryItem) => blockedIds.has(item.id) };
      const refused = sent.filter((item) => inWindow.has(item));
      const sentCounts = sent.map((item) => ({ item, kind: inWindow.has(item) ? 'brownout' : 'use' }) as UsageCount);
      const withheld: RegistryItem[] = [];
      const receivedCounts: UsageCount[] = [];
      for (const entry of received) {
        const reading = readingOf(entry, asked);
        const blocked = inWindow.has(entry.item);
        if (blocked && entry.carried) withheld.push(entry.item);
        if (reading)
          receivedCounts.push({ item: entry.item, kind: blocked && reading === 'use' ? 'brownout' : reading });
      }
      for (const count of sentCounts) sink(count, caller);
      const signalled = [...sentCounts, ...receivedCounts]
        .filter((count) => count.kind !== 'replacement' && count.item.status === 'deprecated')
        .map((count) => count.item);
      const refusal = refused.length > 0 ? brownouts.refusal(refused.map((item) => item.id)) : undefined;
      const whole = ['operation', 'rpc', 'version'];
      const scope = refused.some((item) => whole.includes(item.match.on)) ? 'operation' : 'input';
      return {
        refused,
        refusal: refusal ? { error: refusal.error, retryAfterSeconds: refusal.retryAfterSeconds, scope } : undefined,
        withheld,
        signalled: [...new Set(signalled)],
        sentCounts,
        receivedCounts,
        caller,
      };
    },

    /**
     * Records what the answer counted, once it is known whether it was delivered (a REST 2xx, a GraphQL
     * answer with data, a gRPC response message): an answer that never came carried nothing. Returns
     * what the transport applies to the answer: the items to signal and the ones to leave out.
     */
    settle(
      decision: DeprecationDecision,
      delivered: boolean,
    ): { signalled: readonly RegistryItem[]; withheld: readonly RegistryItem[] } {
      if (!delivered) {
        // Nothing was received: only what the request sent is signalled, and nothing was trimmed.
        const sent = new Set(decision.sentCounts.map((count) => count.item.id));
        return { signalled: decision.signalled.filter((item) => sent.has(item.id)), withheld: [] };
      }
      for (const count of decision.receivedCounts) sink(count, decision.caller);
      return { signalled: decision.signalled, withheld: decision.withheld };
    },

    /** The windows announced for the signalled items (the `Brownout` signal, on every interface). */
    announced: (id: string): BrownoutWindow[] => brownouts.announced(id),
  };
}

/**
 * How a caller reads a received item: named by the request, it is a use; otherwise asking for its
 * replacement is a replacement use; otherwise an answer that carries it is a use; left out, no use.
 */
function readingOf({ item, carried, named }: ReceivedItem, asked: ReadonlySet<string>): UsageKind | undefined {
  if (carried && named) return 'use';
  if (item.replacement && asksFor(item, asked)) return 'replacement';
  return carried ? 'use' : undefined;
}

/** Whether the request asked for the item's replacement, by its name or as `Type.member`. */
function asksFor(item: RegistryItem, asked: ReadonlySet<string>): boolean {
  const replacement = item.replacement as string;
  if (asked.has(replacement)) return true;
  const owner = 'type' in item.match ? item.match.type : 'schema' in item.match ? item.match.schema : undefined;
  return owner !== undefined && asked.has(`${owner}.${replacement}`);
}
