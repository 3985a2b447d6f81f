import type { OrderFilters } from '../core/ports/index.js';

/**
 * The count of a shape the counts kept by the writes answer (migration 0026), as SQL and its
 * parameters: all orders, a set of statuses, one user's orders, one user's orders in a set of statuses, and
 * the orders created within whole UTC days (`from` at midnight, `to` at a day's last millisecond, as a date
 * gives them) in a set of statuses. Any other filter gives undefined: those are counted over the orders, at
 * a cost that grows with the matches.
 */
export function keptCount(filters: OrderFilters): [string, unknown[]] | undefined {
  const { status, userId, from, to, ...others } = filters;
  if (Object.values(others).some((value) => value !== undefined)) return undefined;
  const statuses = status?.length ? status : null;
  if (from !== undefined || to !== undefined) {
    if (userId !== undefined || (from && !dayStart(from)) || (to && !dayEnd(to))) return undefined;
    return [
      `SELECT COALESCE(sum(count), 0) AS count FROM order_day_counts
        WHERE ($1::date IS NULL OR day >= $1::date) AND ($2::date IS NULL OR day <= $2::date)
          AND ($3::text[] IS NULL OR status = ANY($3::text[]))`,
      [from ? dayOf(from) : null, to ? dayOf(to) : null, statuses],
    ];
  }
  if (userId === undefined) {
    return [
      'SELECT COALESCE(sum(count), 0) AS count FROM order_counts WHERE $1::text[] IS NULL OR status = ANY($1::text[])',
      [statuses],
    ];
  }
  return [
    `SELECT COALESCE(sum(count), 0) AS count FROM order_user_counts
      WHERE user_id = $1 AND ($2::text[] IS NULL OR status = ANY($2::text[]))`,
    [userId, statuses],
  ];
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const dayStart = (at: Date) => at.getTime() % DAY_MS === 0;
const dayEnd = (at: Date) => (at.getTime() + 1) % DAY_MS === 0;
