import { DomainError } from '../core/shared/errors.js';
import { asInputError } from './constraint-violations.js';

// SQLSTATE class 08 (connection exception), 57P01-57P03 (the server is shutting down or starting up) and
// 53300 (too many connections): the database is away, not the request at fault.
const UNAVAILABLE_STATES = /^(08...|57P0[123]|57014|53300)$/;
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);
// `Query read timeout`: no answer within the statement bound (`query_timeout`); SQLSTATE 57014 is the
// server's own cancel at `statement_timeout`.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed|Query read timeout/i;

/** Whether a driver error means the server cannot be reached (so the request may succeed later). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/** A lost connection as DATABASE_UNAVAILABLE (503), a constraint input reaches as the caller's error. */
export function asUnavailable(error: unknown): unknown {
  if (!isUnavailable(error)) return asInputError(error);
  const unavailable = new DomainError(
    'DATABASE_UNAVAILABLE',
    'The database cannot be reached right now; retry shortly.',
  );
  // The driver's error stays reachable (for logs, and for the start-failure message that names its reason).
  unavailable.cause = error;
  return unavailable;
}
