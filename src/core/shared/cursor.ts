import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '@order-api/contract-registry';
import { DomainError } from './errors.js';

/** The sort-key values of the last item of a page: strings, numbers, or ISO timestamps. */
export type KeyValues = Array<string | number>;

interface CursorPayload {
  v: 1;
  /** The sort the cursor was made with. */
  s: string;
  /** A digest of the filters the cursor was made with. */
  f: string;
  /** The last item's sort-key values. */
  k: KeyValues;
  /**
   * The API version whose wire shape of the list made the cursor, when that version changed the list's
   * resource (`v2` of orders); absent for v1 and for lists no version changed, so a cursor without it is v1's.
   */
  r?: string;
}

/** Reads and writes the opaque, signed page cursors shared by REST and GraphQL. */
export interface CursorCodec {
  /** `version`: the version that changed the list's resource and answers this page (absent: v1's shape). */
  encode(sort: string, filterDigest: string, keys: KeyValues, version?: string): string;
  /** Refuses a cursor made by another version of a changed list (absent on both sides: v1). */
  decode(token: string, sort: string, filterDigest: string, version?: string): KeyValues;
}

const invalidCursor = (detail: string) =>
  new DomainError('INVALID_CURSOR', detail, [{ in: 'query', name: 'cursor', message: detail }]);

/**
 * Creates the cursor codec. A cursor is `base64url(json).base64url(hmac)`: the signature makes it
 * tamper-evident, the sort and filter digest inside bind it to the query that made it, and the key is
 * shared by every instance, so any instance can continue any page (docs/decisions.md §2).
 */
export function createCursorCodec(secret: string): CursorCodec {
  const sign = (body: string) => createHmac('sha256', secret).update(body).digest().subarray(0, 16);
  return {
    encode(sort, filterDigest, keys, version) {
      const payload: CursorPayload = { v: 1, s: sort, f: filterDigest, k: keys, ...(version ? { r: version } : {}) };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    decode(token, sort, filterDigest, version) {
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined) throw invalidCursor('The cursor is malformed.');
      const expected = sign(body);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw invalidCursor('The cursor was altered or was not made by this API.');
      }
      let payload: CursorPayload;
      try {
        payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor('The cursor is malformed.');
      }
      if (payload.v !== 1 || !Array.isArray(payload.k)) throw invalidCursor('The cursor is malformed.');
      if (payload.s !== sort || payload.f !== filterDigest) {
        throw invalidCursor('The cursor was made for other filters or another sort; start again without a cursor.');
      }
      if ((payload.r ?? 'v1') !== (version ?? 'v1')) {
        throw invalidCursor(
          `The cursor was made by ${payload.r ?? 'v1'} of this list, whose items have another shape there; ` +
            `continue that list in ${payload.r ?? 'v1'}, or start again without a cursor.`,
        );
      }
      return payload.k;
    },
  };
}

/** A stable digest of normalized filters: the same filters, in any order or form, give the same digest. */
export function filterDigest(filters: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(filters)).digest('base64url').slice(0, 22);
}
