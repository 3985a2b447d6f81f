/** The GraphQL form of a key's own use of deprecated and watched items (`User.deprecatedUsage`). */

import { describeItem } from '@order-api/contract-registry';
import type { DeprecatedUsage } from '../../generated/graphql/resolvers.js';
import type { KeyUsage } from '../core/lifecycle/deprecated-usage.js';

/** Maps the core's key usage to the schema's `DeprecatedUsage`, member for member as REST's. */
export function deprecatedUsageOf({ apiKeyId, from, to, items }: KeyUsage): DeprecatedUsage {
  return {
    apiKeyId: String(apiKeyId),
    from,
    to,
    items: items.map(({ item, state, uses, replacementUses, brownoutHits, brownouts, daily }) => ({
      ...describeItem(item),
      state,
      uses,
      replacementUses,
      brownoutHits,
      brownouts: brownouts.map((window) => ({
        id: String(window.id),
        startsAt: window.startsAt.toISOString(),
        endsAt: window.endsAt.toISOString(),
      })),
      daily,
    })),
  };
}
