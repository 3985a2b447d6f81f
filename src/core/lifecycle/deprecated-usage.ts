/**
 * A key's own use of deprecated and watched items (self-serve, after Shopify's API health page and Stripe's
 * Workbench): every registry item one API key used, used the replacement of, or met in a brownout window
 * in the last 30 UTC days, with the item's dates, state and scheduled windows and the key's daily counts.
 * The key's owner or an admin may read it; another user's key is API_KEY_NOT_FOUND, as a key that does not
 * exist, so key ids cannot be probed (docs/decisions.md §4). The rows and their folding are the callers
 * report's (`callerReports`), read for one key instead of one item.
 */

import type { DeprecationRegistry, RegistryItem } from '@order-api/contract-registry';
import { ownKeyId, requireOwnUser, requireReadableKey } from '../keys/index.js';
import type { ApiKeyStore, UsagePort } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { dayOf, daysBefore } from '../shared/index.js';
import type { BrownoutService, BrownoutWindow } from './brownouts/index.js';
import { type ItemState, readStates } from './deprecations.js';
import { type Counts, callerReports } from './usage/index.js';

/** The UTC days a key's usage covers, today included. */
export const USAGE_PERIOD_DAYS = 30;

/**
 * Where a key reads its own usage (REST, under `base`: a version's URL prefix, from the transport's mount
 * table), linked from the deprecation signals and brownout refusals of every interface; undefined for a
 * caller without a key (anonymous: 0 or null).
 */
export const deprecatedUsagePath = (apiKeyId: number | null | undefined, base: string): string | undefined =>
  apiKeyId ? `${base}/api-keys/${apiKeyId}/deprecations` : undefined;

/** One item as one key used it in the period. */
export interface KeyItemUsage extends Counts {
  item: RegistryItem;
  state: ItemState;
  /** Windows of the item not ended yet (upcoming and running), earliest first. */
  brownouts: BrownoutWindow[];
  /** The key's counts per UTC day with any, oldest first. */
  daily: Array<Counts & { day: string }>;
}

/** A key's usage: the key, the period's first and last UTC day, and its items by id. */
export interface KeyUsage {
  apiKeyId: number;
  from: string;
  to: string;
  items: KeyItemUsage[];
}

/** What the service reads. */
export interface DeprecatedUsageDeps {
  registry: DeprecationRegistry;
  usage: Pick<UsagePort, 'keyUsage' | 'totals'>;
  apiKeys: Pick<ApiKeyStore, 'get'>;
  brownouts?: Pick<BrownoutService, 'announced'>;
  now?: () => Date;
}

/** The self-serve usage service. */
export function createDeprecatedUsageService({
  registry,
  usage,
  apiKeys,
  brownouts,
  now = () => new Date(),
}: DeprecatedUsageDeps) {
  const items = new Map(registry.items.map((item) => [item.id, item]));

  /**
   * The usage of a key the caller may read: its own, whatever its scopes (the server links every signalled
   * request there), or, with `keys:read`, another key of its user (any key for an admin).
   */
  async function ofKey(caller: Caller, apiKeyId: number): Promise<KeyUsage> {
    await requireReadableKey(apiKeys, caller, apiKeyId);
    const at = now();
    const from = daysBefore(at, USAGE_PERIOD_DAYS - 1);
    const [rows, { stateOfItem }] = await Promise.all([usage.keyUsage(apiKeyId, from), readStates(usage, at)]);
    const used: KeyItemUsage[] = [];
    for (const id of [...new Set(rows.map((row) => row.item))].sort()) {
      // Rows of items the registry no longer holds (a retired item) are history, not current use.
      const item = items.get(id);
      if (!item) continue;
      const [report] = callerReports(
        rows.filter((row) => row.item === id),
        [],
      );
      if (!report) continue;
      used.push({
        item,
        state: stateOfItem(item),
        uses: report.uses,
        replacementUses: report.replacementUses,
        brownoutHits: report.brownoutHits,
        brownouts: brownouts?.announced(id) ?? [],
        daily: report.daily,
      });
    }
    return { apiKeyId, from, to: dayOf(at), items: used };
  }

  /** The usage of the key making the request (REST `/v1/api-keys/me/deprecations`, GraphQL `me`). */
  async function own(caller: Caller): Promise<KeyUsage> {
    return ofKey(caller, ownKeyId(caller));
  }

  return {
    ofKey,
    own,

    /**
     * The calling key's usage as a member of a user (GraphQL `User.deprecatedUsage`): only on the caller's
     * own user, since it is one key's use, not the user's; FORBIDDEN on anyone else.
     */
    async ownOnUser(caller: Caller, userId: number): Promise<KeyUsage> {
      requireOwnUser(caller, userId, 'deprecatedUsage', 'deprecations');
      return own(caller);
    },
  };
}

/** The self-serve usage service. */
export type DeprecatedUsageService = ReturnType<typeof createDeprecatedUsageService>;
