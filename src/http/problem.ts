import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { DomainError, type ErrorCode, type ErrorMembers, errorCatalog, type Violation } from '../core/shared/errors.js';
import { answer } from './edge-headers.js';
import { httpStatusOf } from './http-status.js';

/** The page of a code under `/problems/` (`ORDER_NOT_FOUND` -> `order-not-found`). */
export const problemSlug = (code: string) => code.toLowerCase().replaceAll('_', '-');

/**
 * A problem's `type` URI (RFC 9457 §3.1.1): the page this server serves for the code, at PUBLIC_BASE_URL
 * when set (behind a proxy), else at the origin the request came to when its host is one of
 * TRUSTED_HOSTS, else at `localhost` on the port that answered: a `Host` header is the client's to write,
 * and a link in an answer must not point where any client chose.
 */
function problemType(c: Context, code: string): string {
  return `${c.get('publicBaseUrl') ?? trustedOrigin(c)}/problems/${problemSlug(code)}`;
}

function trustedOrigin(c: Context): string {
  const url = new URL(c.req.url);
  if (c.get('trustedHosts')?.has(url.hostname.toLowerCase())) return url.origin;
  const port = (c.env as { incoming?: { socket?: { localPort?: number } } } | undefined)?.incoming?.socket?.localPort;
  return `${url.protocol}//localhost${port ? `:${port}` : ''}`;
}

/** One violation in a validation problem. */
export interface ProblemViolation {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  message: string;
}

/** What a handler says about a failure; the problem document is built from it. */
export interface ProblemInput {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: ProblemViolation[];
  /**
   * Extension members of this problem (RFC 9457 §3.2): the code's own (`requiredScope`), and
   * `deprecatedUsage` on a `BROWNOUT` of a request made with a key, as the contract's Problem schema lists them.
   */
  members?: ErrorMembers & { deprecatedUsage?: string };
}

/** Answers with an `application/problem+json` document (RFC 9457) carrying the stable `code`. */
export function problemResponse(c: Context, input: ProblemInput, headers: Record<string, string> = {}): Response {
  c.set('problemCode', input.code);
  const body = {
    type: problemType(c, input.code),
    title: input.title,
    status: input.status,
    detail: input.detail ?? input.title,
    instance: new URL(c.req.url).pathname,
    code: input.code,
    requestId: c.get('requestId'),
    ...input.members,
    ...traceIdOf(c),
    ...(input.errors ? { errors: input.errors } : {}),
  };
  return answer(c, JSON.stringify(body), input.status, { ...headers, 'content-type': 'application/problem+json' });
}

/** The request's trace id, when tracing is on: the key to its spans in the operator's tracing backend. */
function traceIdOf(c: Context): { traceId?: string } {
  const traceId = c.get('traceId');
  return traceId ? { traceId } : {};
}

/** Codes whose cause passes by itself: the answer says when to retry (RFC 9110 §10.2.3). */
const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = { DATABASE_UNAVAILABLE: 1 };

/**
 * The one mapping from a catalog code to an HTTP problem: status and title come from the error catalog,
 * for every route on the public port.
 */
export function catalogProblem(
  c: Context,
  code: ErrorCode,
  detail: string,
  errors?: Violation[],
  headers: Record<string, string> = {},
  /** Only for a code whose contract documents a second status (`BROWNOUT_OF_INPUT_STATUS`). */
  status: ContentfulStatusCode = httpStatusOf[code],
  /** Extension members the contract documents for this problem. */
  members?: Record<string, string>,
): Response {
  const spec = errorCatalog[code];
  const retryAfter = RETRY_AFTER_SECONDS[code];
  return problemResponse(
    c,
    { status, code, title: spec.title, detail, ...(errors ? { errors } : {}), ...(members ? { members } : {}) },
    retryAfter === undefined ? headers : { ...headers, 'Retry-After': String(retryAfter) },
  );
}

/**
 * The problem of a domain error, with its code's own members; a missing scope also gets the RFC 6750
 * challenge that names it (`error="insufficient_scope"`).
 */
export function domainProblem(c: Context, error: DomainError): Response {
  const scope = error.members?.requiredScope;
  const retryAfter: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  if (!error.members) return catalogProblem(c, error.code, error.detail, error.violations, retryAfter);
  const spec = errorCatalog[error.code];
  return problemResponse(
    c,
    {
      status: httpStatusOf[error.code],
      code: error.code,
      title: spec.title,
      detail: error.detail,
      members: error.members,
      ...(error.violations ? { errors: error.violations } : {}),
    },
    {
      ...retryAfter,
      ...(scope
        ? { 'WWW-Authenticate': `Bearer realm="order-api", error="insufficient_scope", scope="${scope}"` }
        : {}),
    },
  );
}

/**
 * The public app's error handler: a domain error thrown by any route (the REST steps throw theirs) becomes
 * its problem document where it was thrown; anything else is logged with the request id and answered 500.
 */
export function problemOnError(logger: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof DomainError) return domainProblem(c, error);
    logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
    return catalogProblem(
      c,
      'INTERNAL',
      'The server failed to answer; the request id identifies the failure in the logs.',
    );
  };
}
