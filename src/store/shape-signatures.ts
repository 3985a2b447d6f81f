/**
 * GraphQL operation signatures of the request-shape record (migration 0029), stored once by hash within the
 * table's caps: at most `max` in all and `maxPerKey` first sent by one key, so one key cannot fill it.
 */
import type { NewSignature, SignatureLimits } from '../core/ports/shapes.js';
import type { Queryable } from './database.js';

/** Stores new signatures within the table's caps; returns the hashes stored (new or not). */
export async function storeSignatures(tx: Queryable, signatures: NewSignature[], limits: SignatureLimits) {
  if (signatures.length === 0) return new Set<string>();
  // One flush at a time decides what still fits (instances flushing together would each see room).
  await tx.query('LOCK TABLE request_shape_signatures IN SHARE ROW EXCLUSIVE MODE');
  const known = new Set(
    (
      await tx.query<{ hash: string }>('SELECT hash FROM request_shape_signatures WHERE hash = ANY($1::text[])', [
        signatures.map((entry) => entry.hash),
      ])
    ).map((row) => row.hash),
  );
  const fresh = signatures.filter((entry) => !known.has(entry.hash));
  if (fresh.length === 0) return known;
  const keys = [...new Set(fresh.map((entry) => entry.apiKeyId))];
  const perKey = new Map(
    (
      await tx.query<{ api_key_id: string; stored: number }>(
        `SELECT api_key_id, count(*)::int AS stored FROM request_shape_signatures
          WHERE api_key_id = ANY($1::bigint[]) GROUP BY api_key_id`,
        [keys],
      )
    ).map((row) => [Number(row.api_key_id), Number(row.stored)]),
  );
  const [{ stored }] = (await tx.query<{ stored: number }>(
    'SELECT count(*)::int AS stored FROM request_shape_signatures',
  )) as [{ stored: number }];
  let room = limits.max - Number(stored);
  const accepted = fresh.filter((entry) => {
    const held = perKey.get(entry.apiKeyId) ?? 0;
    if (room <= 0 || held >= limits.maxPerKey) return false;
    perKey.set(entry.apiKeyId, held + 1);
    room -= 1;
    return true;
  });
  if (accepted.length > 0) {
    await tx.query(
      `INSERT INTO request_shape_signatures (hash, signature, api_key_id, first_seen)
       SELECT hash, signature, api_key_id, now() FROM unnest($1::text[], $2::text[], $3::bigint[]) AS s (hash, signature, api_key_id)
       ON CONFLICT (hash) DO NOTHING`,
      [
        accepted.map((entry) => entry.hash),
        accepted.map((entry) => entry.signature),
        accepted.map((entry) => entry.apiKeyId),
      ],
    );
  }
  for (const entry of accepted) known.add(entry.hash);
  return known;
}
