/**
 * A key's own records: its use of deprecated and watched items (`GET /v1/api-keys/{apiKeyId}/deprecations`)
 * and the request shapes it sent (`GET /v1/api-keys/{apiKeyId}/request-shapes`), each with its `me` form.
 */

import { describeItem } from '@order-api/contract-registry';
import type { Core } from '../core/index.js';
import type { KeyUsage } from '../core/lifecycle/deprecated-usage.js';
import type { RequestShape, ShapeQuery } from '../core/lifecycle/shapes/request-shapes.js';
import { pageJson } from './mappers.js';
import { json, type RestHandlerGroup, type Schemas } from './respond.js';
import { callerOf, listInput, pathId, type RestRequest } from './validated-request.js';

/** The contract's form of one request shape. */
function shapeJson({ id, protocol, shape, signature, uses, firstSeen, lastSeen, clients }: RequestShape) {
  return {
    id,
    protocol,
    shape,
    signature,
    uses,
    firstSeen: firstSeen.toISOString(),
    lastSeen: lastSeen.toISOString(),
    clients,
  } satisfies Schemas['RequestShape'];
}

/** `days` and `protocol` of a request-shape list. */
function shapeQuery(request: RestRequest): ShapeQuery {
  const protocol = request.query.protocol as ShapeQuery['protocol'];
  return { days: request.query.days ? Number(request.query.days) : 30, ...(protocol ? { protocol } : {}) };
}

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

    async listApiKeyRequestShapes(request) {
      const apiKeyId = pathId(request, 'apiKeyId');
      const page = await core.requestShapes.ofKey(
        callerOf(request),
        apiKeyId,
        shapeQuery(request),
        listInput(request.query),
      );
      return json(request.c, 200, pageJson(page, shapeJson) satisfies Schemas['RequestShapeList']);
    },

    async listOwnRequestShapes(request) {
      const page = await core.requestShapes.own(callerOf(request), shapeQuery(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, shapeJson) satisfies Schemas['RequestShapeList']);
    },
  } satisfies RestHandlerGroup;
}
