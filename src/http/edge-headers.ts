import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

/** The headers the edge middleware gathered for a request's answer, and the last answer made with them. */
export interface EdgeHeaders {
  headers: Record<string, string>;
  answered?: Response;
}

/** A client's request id is kept when it is 1 to 255 letters, digits, `_`, `-` or `=` (as hono/request-id). */
const CLIENT_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * Adds headers every answer of this request carries, whatever answers it (the request id, CORS, the
 * RateLimit fields). They are gathered in one plain object before the handler runs and written with
 * the answer by `answer`, instead of being set one by one on a fetch `Headers` after it: building and
 * reading those `Headers` cost more than the rest of the edge.
 */
export function addEdgeHeaders(c: Context, headers: Record<string, string>) {
  Object.assign(c.get('edgeHeaders').headers, headers);
}

/**
 * An answer of the public port: the body, the status and the handler's headers, with the request's edge
 * headers, in one plain header object that @hono/node-server writes as it is. Give every header in
 * `headers`: one set earlier with Hono's `c.header()` is not carried (Hono keeps it where this cannot see
 * it). REST answers and problem documents are made here, so nothing on their path calls `c.header()`
 * (test/architecture.test.ts checks it).
 */
export function answer(
  c: Context,
  body: string | Uint8Array<ArrayBuffer> | null,
  status: number,
  headers: Record<string, string>,
): Response {
  const edge = c.get('edgeHeaders') as EdgeHeaders | undefined;
  if (!edge) return new Response(body, { status, headers });
  const all = { ...edge.headers, ...headers };
  if ((all['content-type'] ?? all['Content-Type'])?.startsWith('text/html')) denyFraming(all);
  edge.answered = new Response(body, { status, headers: all });
  return edge.answered;
}

/**
 * The first middleware of the public port: gives the request its id (`X-Request-Id`, echoed when the
 * client sent a well-formed one) and, after the handler, puts the edge headers on an answer made
 * elsewhere than by `answer` (Yoga's, the documentation's, Hono's), and denies framing to HTML pages.
 */
export function requestIdAndEdgeHeaders(): MiddlewareHandler {
  return async function assignRequestId(c, next) {
    const sent = c.req.header('x-request-id');
    const id = sent !== undefined && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    const edge: EdgeHeaders = { headers: { 'X-Request-Id': id } };
    c.set('requestId', id);
    c.set('edgeHeaders', edge);
    await next();
    if (c.res === edge.answered) return;
    for (const [name, value] of Object.entries(edge.headers)) c.res.headers.set(name, value);
    if (c.res.headers.get('content-type')?.startsWith('text/html')) {
      const denied: Record<string, string> = {
        'content-security-policy': c.res.headers.get('content-security-policy') ?? '',
      };
      denyFraming(denied);
      for (const [name, value] of Object.entries(denied)) c.res.headers.set(name, value);
    }
  };
}

/**
 * No page of this server may be framed by another site (clickjacking): every HTML answer (the reference
 * at `/docs`, GraphiQL) carries `frame-ancestors 'none'` in its Content-Security-Policy, and
 * `X-Frame-Options: DENY` for browsers that predate it. Written into plain header objects whose names are
 * lower case or as `answer`'s callers spell them.
 */
function denyFraming(headers: Record<string, string>) {
  const name = 'Content-Security-Policy' in headers ? 'Content-Security-Policy' : 'content-security-policy';
  const policy = headers[name];
  if (!policy?.includes('frame-ancestors')) {
    headers[name] = policy ? `${policy}; frame-ancestors 'none'` : "frame-ancestors 'none'";
  }
  headers['x-frame-options'] = 'DENY';
}
