/** The GraphQL form of a key's own use of deprecated and watched items (`User.deprecatedUsage`). */
import type { DeprecatedUsage } from '../../generated/graphql/resolvers.js';
import type { KeyUsage } from '../core/deprecated-usage.js';

/** Maps the core's key usage to the schema's `DeprecatedUsage`, member for member as REST's. */
export function deprecatedUsageOf({ apiKeyId, from, to, items }: KeyUsage): DeprecatedUsage {
  return {
    apiKeyId: String(apiKeyId),
    from,
    to,
    items: items.map(({ item, state, uses, replacementUses, brownoutHits, brownouts, daily }) => ({
      id: item.id,
      protocol: item.protocol,
      name: item.name,
      status: item.status,
      state,
      deprecatedOn: item.deprecated,
      sunset: item.sunset,
      reason: item.reason,
      replacement: item.replacement,
      link: item.link,
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
