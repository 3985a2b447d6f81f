/**
 * A key's own request shapes (docs/decisions.md §13): every name one API key sent over REST, GraphQL and gRPC
 * in a period of UTC days, summed over the days, paged as every list is. Read by the key itself, or by its
 * owner or an admin with `keys:read` (./readable-key.ts).
 */

import { ownKeyId, requireOwnUser, requireReadableKey } from '../../keys/index.js';
import type { ApiKeyStore, KeyShape, ShapePort, ShapeProtocol } from '../../ports/index.js';
import type { Caller, CursorCodec } from '../../shared/index.js';
import { daysBefore, type ListInput, type Page, pageInMemory, parseSort } from '../../shared/index.js';

/** Sort keys of a key's shapes; `id` (the protocol and the shape) is the final tie-breaker. */
export const SHAPE_SORT_FIELDS = ['protocol', 'shape', 'uses', 'lastSeen', 'firstSeen', 'id'] as const;

/** One shape of a key, as the lists answer it. */
export interface RequestShape extends KeyShape {
  /** `<protocol> <shape>`: unique in the list. */
  id: string;
}

/** Which of a key's shapes: the UTC days back (today included) and, optionally, one protocol. */
export interface ShapeQuery {
  days: number;
  protocol?: ShapeProtocol | undefined;
}

/** What the service reads. */
export interface RequestShapesDeps {
  shapes: Pick<ShapePort, 'keyShapes'>;
  apiKeys: Pick<ApiKeyStore, 'get'>;
  cursors: CursorCodec;
  now?: () => Date;
}

/** The service of a key's own request shapes. */
export type RequestShapesService = ReturnType<typeof createRequestShapesService>;

/** Creates the service. */
export function createRequestShapesService({ shapes, apiKeys, cursors, now = () => new Date() }: RequestShapesDeps) {
  async function ofKey(caller: Caller, apiKeyId: number, query: ShapeQuery, input: ListInput = {}) {
    await requireReadableKey(apiKeys, caller, apiKeyId);
    const rows = await shapes.keyShapes(apiKeyId, {
      sinceDay: daysBefore(now(), query.days - 1),
      ...(query.protocol ? { protocol: query.protocol } : {}),
    });
    const items: RequestShape[] = rows.map((row) => ({ ...row, id: `${row.protocol} ${row.shape}` }));
    return pageInMemory(items, {
      cursors,
      sort: parseSort(input.sort, SHAPE_SORT_FIELDS, 'protocol,shape'),
      size: input.size,
      cursor: input.cursor,
      filters: { apiKeyId, days: query.days, protocol: query.protocol ?? null },
      withTotal: input.withTotal,
    }) as Promise<Page<RequestShape>>;
  }

  return {
    ofKey,
    /** The shapes of the key making the request (REST `/v1/api-keys/me/request-shapes`). */
    own: (caller: Caller, query: ShapeQuery, input?: ListInput) => ofKey(caller, ownKeyId(caller), query, input),
    /** The same on a user (GraphQL `me { requestShapes }`): only on the caller's own user. */
    ownOnUser(caller: Caller, userId: number, query: ShapeQuery, input?: ListInput) {
      requireOwnUser(caller, userId, 'requestShapes', 'request-shapes');
      return ofKey(caller, ownKeyId(caller), query, input);
    },
  };
}
