/** A key's own use of deprecated and watched items: `GET /v1/api-keys/{apiKeyId}/deprecations` and its `me` form. */
import type { KeyUsage } from '../core/deprecated-usage.js';
import { describeItem } from '../core/deprecation-registry.js';
import type { Core } from '../core/index.js';
import { json, type RestHandlerGroup, type Schemas } from './respond.js';
import { callerOf, pathId } from './validated-request.js';

/** The contract's form of a key's usage. */
function usageJson({ apiKeyId, from, to, items }: KeyUsage): Schemas['DeprecatedUsage'] {
  return {
    apiKeyId,
    from,
    to,
    items: items.map(({ item, state, uses, replacementUses, brownoutHits, brownouts, daily }) => ({
      ...describeItem(item),
      state,
      uses,
      replacementUses,
      brownoutHits,
      brownouts: brownouts.map((window) => ({
        id: window.id,
        startsAt: window.startsAt.toISOString(),
        endsAt: window.endsAt.toISOString(),
      })),
      daily,
    })),
  };
}

/** The handlers of a key's own usage. */
export function createDeprecatedUsageHandlers(core: Core) {
  return {
    async getApiKeyDeprecatedUsage(request) {
      const usage = await core.deprecatedUsage.ofKey(callerOf(request), pathId(request, 'apiKeyId'));
      return json(request.c, 200, usageJson(usage));
    },

    async getOwnDeprecatedUsage(request) {
      return json(request.c, 200, usageJson(await core.deprecatedUsage.own(callerOf(request))));
    },
  } satisfies RestHandlerGroup;
}
