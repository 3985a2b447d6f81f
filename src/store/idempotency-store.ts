import type { IdempotencyClaim, Store } from '../core/ports/index.js';
import type { Database, Transaction } from './database.js';
import { releaseUnkept } from './inventory-store.js';
import type { Outbox } from './outbox.js';

/**
 * Releases the stock a dropped claim held, unless its order was written after all; returns the ids of
 * the orders that were written (the work finished but its claim never completed). An order committing at
 * this moment is not seen here, but the release skips every reservation that order kept (`releaseUnkept`),
 * and the order's own write fails if a reservation it needs was released first.
 */
async function releaseOrphaned(tx: Transaction, events: Outbox, heldOrderIds: unknown[]): Promise<number[]> {
  const written: number[] = [];
  for (const orderId of heldOrderIds) {
    if (orderId === null || orderId === undefined) continue;
    const rows = await tx.query('SELECT 1 FROM orders WHERE id = $1', [orderId]);
    if (rows.length === 0) await releaseUnkept(tx, events, Number(orderId));
    else written.push(Number(orderId));
  }
  return written;
}

/**
 * When a key's row no longer counts (older than `since`: $3) or its claim is dead (in progress since before
 * `leaseStart`: $4, or ended, or ended on this instance: `endedToken`, $5): a new request takes it over.
 */
const DEAD = `(created_at < $3 OR (state = 'IN_PROGRESS'
  AND (created_at < $4 OR ended_at IS NOT NULL OR COALESCE(token, created_at::text) = $5)))`;

/**
 * Drops the key's row when it no longer counts or its claim is dead (`DEAD`), releasing the stock a dead
 * claim held; returns the order a dead claim of this same request wrote, which the new claim answers with.
 */
function takeOverDead(
  db: Database,
  events: Outbox,
  caller: string,
  key: string,
  fingerprint: string,
  since: Date,
  leaseStart: Date,
  endedToken: string | undefined,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const dropped = await tx.query(
      `DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND ${DEAD}
        RETURNING held_order_id, state, fingerprint`,
      [caller, key, since, leaseStart, endedToken ?? null],
    );
    const dead = dropped.filter((row) => row.state === 'IN_PROGRESS');
    const written = await releaseOrphaned(
      tx,
      events,
      dead.map((row) => row.held_order_id),
    );
    return dead.some((row) => row.fingerprint === fingerprint) ? written[0] : undefined;
  });
}

/**
 * Claims the key in one round trip: the new claim's token, or the row that holds the key already, with
 * whether it is dead. (The row is read in the statement's snapshot: one committed just after it started
 * is missed, and the caller tries again.)
 */
const CLAIM = `WITH claimed AS (
    INSERT INTO idempotency_keys (caller, key, operation, fingerprint, state, held_order_id, token)
    VALUES ($1, $2, $6, $7, 'IN_PROGRESS', $8, $9)
    ON CONFLICT (caller, key) DO NOTHING RETURNING token)
  SELECT token, NULL AS state, NULL AS fingerprint, NULL AS result, NULL AS created_at, false AS dead FROM claimed
  UNION ALL
  SELECT NULL, state, fingerprint, result, created_at, ${DEAD} FROM idempotency_keys
   WHERE caller = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`;

/** What a claim names: the key of a caller, the request's operation and fingerprint, its time limits. */
interface ClaimRequest {
  caller: string;
  key: string;
  operation: string;
  fingerprint: string;
  since: Date;
  leaseStart: Date;
  endedToken: string | undefined;
  token: string;
}

/** Claims a key: one round trip when it is free or held (replay, in progress); a takeover when it is dead. */
async function claimKey(db: Database, events: Outbox, request: ClaimRequest): Promise<IdempotencyClaim> {
  const { caller, key, operation, fingerprint, since, leaseStart, endedToken, token } = request;
  const attempt = (heldOrderId: number | undefined) =>
    db.query(CLAIM, [
      caller,
      key,
      since,
      leaseStart,
      endedToken ?? null,
      operation,
      fingerprint,
      heldOrderId ?? null,
      token,
    ]);
  let rows = await attempt(undefined);
  let heldOrderId: number | undefined;
  if (rows[0]?.dead === true) {
    // A key older than 24 hours no longer counts, nor does a claim whose lease ran out: the request that
    // comes now takes it over, and the stock of the dead claim goes back. The order a dead claim of this
    // same request wrote is handed to the new claim, so that the retry answers with it instead of placing
    // a second one.
    heldOrderId = await takeOverDead(db, events, caller, key, fingerprint, since, leaseStart, endedToken);
    rows = await attempt(heldOrderId);
  }
  const row = rows[0];
  // Gone between the two statements, or dead again: claim afresh.
  if (!row || row.dead === true) return claimKey(db, events, request);
  if (row.token !== null) {
    return { kind: 'claimed', token: row.token as string, ...(heldOrderId === undefined ? {} : { heldOrderId }) };
  }
  return row.state === 'COMPLETED'
    ? { kind: 'completed', fingerprint: row.fingerprint as string, result: row.result }
    : { kind: 'in-progress', fingerprint: row.fingerprint as string, claimedAt: row.created_at as Date };
}

/** Idempotency keys in PostgreSQL: one row per (caller, key), claimed IN_PROGRESS, then COMPLETED with its result. */
export function idempotencyStore(db: Database, events: Outbox): Store['idempotency'] {
  return {
    claim: (caller, key, operation, fingerprint, since, leaseStart, endedToken, token) =>
      claimKey(db, events, { caller, key, operation, fingerprint, since, leaseStart, endedToken, token }),
    async end(caller, key, token) {
      await db.query(
        `UPDATE idempotency_keys SET ended_at = now()
          WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS' AND COALESCE(token, created_at::text) = $3`,
        [caller, key, token],
      );
    },
    async hold(caller, key, token, orderId) {
      const rows = await db.query(
        `UPDATE idempotency_keys SET held_order_id = $4
          WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS' AND COALESCE(token, created_at::text) = $3 RETURNING key`,
        [caller, key, token, orderId],
      );
      return rows.length > 0;
    },
    async complete(caller, key, token, result) {
      const rows = await db.query(
        `UPDATE idempotency_keys SET state = 'COMPLETED', result = $4, held_order_id = NULL
          WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS' AND COALESCE(token, created_at::text) = $3 RETURNING key`,
        [caller, key, token, JSON.stringify(result)],
      );
      return rows.length > 0;
    },
    async purge(before) {
      const rows = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING key', [before]);
      return rows.length;
    },
    expireLeases(leaseStart) {
      return db.transaction(async (tx) => {
        // A dead claim whose order was written is kept: its outcome is that order, and the retry with the
        // key takes the claim over and answers with it (claim above). Dropping it here would let the retry
        // place a second order. The 24-hour purge forgets it with the other keys.
        const dropped = await tx.query(
          `DELETE FROM idempotency_keys k WHERE state = 'IN_PROGRESS' AND created_at < $1
              AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = k.held_order_id)
            RETURNING held_order_id`,
          [leaseStart],
        );
        await releaseOrphaned(
          tx,
          events,
          dropped.map((row) => row.held_order_id),
        );
        return dropped.length;
      });
    },
    async abandon(caller, key, token) {
      const rows = await db.query(
        `DELETE FROM idempotency_keys
          WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS' AND COALESCE(token, created_at::text) = $3 RETURNING key`,
        [caller, key, token],
      );
      return rows.length > 0;
    },
  };
}
