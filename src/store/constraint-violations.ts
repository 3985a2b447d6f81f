/**
 * The schema's constraints as the caller's errors. The contracts refuse bad input before it reaches the
 * database, so a constraint that input can reach fires only when that check and the constraint drift
 * apart, or in a race (a user deleted while a key is issued for it): it then answers what the contracts
 * would have, `VALIDATION_FAILED` naming the member (or the code of the conflict), never `INTERNAL`.
 * A constraint on what the server derives (totals, states, event ids) is the server's own invariant: its
 * violation is a fault and stays `INTERNAL` (test/store/constraint-violations.test.ts lists both kinds and
 * provokes every constraint input can reach).
 */
import { DomainError, type ErrorCode, type Violation } from '../core/shared/errors.js';

/** What a violated constraint tells the caller: a code, and the member at fault if there is one. */
interface ConstraintAnswer {
  code: ErrorCode;
  violation?: Violation;
}

const member = (name: string, message: string): ConstraintAnswer => ({
  code: 'VALIDATION_FAILED',
  violation: { in: 'body', name, message },
});

/**
 * Every constraint that input can reach, by name, and its answer; `products_sku_key` and the unique e-mail
 * index are answered by their stores (`SKU_TAKEN`, `EMAIL_TAKEN`), which look for them.
 */
export const INPUT_CONSTRAINTS: Readonly<Record<string, ConstraintAnswer>> = {
  api_keys_label_check: member('/label', 'must hold 1 or more characters, within its bound'),
  api_keys_rate_limit_check: member('/rateLimit', 'must be a positive number of points'),
  api_keys_role_check: member('/role', 'is not a role'),
  api_keys_user_id_fkey: member('/userId', 'names no user'),
  brownouts_check: member('/endsAt', 'must be after startsAt'),
  cancellations_order_id_key: { code: 'ALREADY_CANCELED' },
  order_drafts_user_id_fkey: member('/userId', 'names no user'),
  order_items_product_id_fkey: member('/items', 'names no product'),
  order_items_quantity_check: member('/items', 'must order at least one unit of each product'),
  orders_status_check: member('/status', 'is not a state of an order'),
  orders_user_id_fkey: member('/userId', 'names no user'),
  products_price_minor_check: member('/price', 'must not be negative'),
  ratings_product_id_fkey: { code: 'PRODUCT_NOT_FOUND' },
  ratings_score_check: member('/score', 'is out of range'),
  ratings_user_id_fkey: { code: 'USER_NOT_FOUND' },
  reservations_quantity_check: member('quantity', 'must be greater than 0'),
  reservations_sku_fkey: { code: 'SKU_NOT_FOUND' },
  webhook_endpoints_user_id_fkey: { code: 'USER_NOT_FOUND' },
};

/** The SQLSTATEs of input the schema refuses, for a value that no named constraint covers. */
const NOT_NULL = '23502';
const OUT_OF_RANGE = '22003';
const NOT_A_VALUE = '22P02';
const CONSTRAINT_STATES = new Set(['23514', '23503', '23505']);

/** A driver error's SQLSTATE, constraint and column. */
interface DriverError {
  code?: unknown;
  constraint?: unknown;
  column?: unknown;
}

/** The caller's error that a driver error stands for, or the error itself (a fault of the server). */
export function asInputError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, constraint, column } = error as DriverError;
  if (typeof code !== 'string') return error;
  let answer: ConstraintAnswer | undefined;
  if (CONSTRAINT_STATES.has(code) && typeof constraint === 'string') answer = INPUT_CONSTRAINTS[constraint];
  else if (code === NOT_NULL && typeof column === 'string') answer = member(`/${camelCase(column)}`, 'is required');
  else if (code === OUT_OF_RANGE) answer = member('', 'holds a number out of the range it can have');
  else if (code === NOT_A_VALUE) answer = member('', 'holds a value of the wrong form');
  if (!answer) return error;
  const detail = answer.violation
    ? `The request is invalid: ${answer.violation.in} ${answer.violation.name || '(body)'} ${answer.violation.message}.`
    : `The request conflicts with what is stored (${constraint}).`;
  const mapped = new DomainError(answer.code, detail, answer.violation ? [answer.violation] : undefined);
  mapped.cause = error;
  return mapped;
}

const camelCase = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
