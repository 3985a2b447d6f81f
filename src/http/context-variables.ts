/**
 * The variables the public port keeps on a request's Hono context, typed once for every middleware and
 * handler (Hono's `ContextVariableMap`): no module-level maps keyed by requests.
 */
import type { Caller } from '../core/shared/caller.js';
import type { EdgeHeaders } from './edge-headers.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** PUBLIC_BASE_URL, when set: the origin of problem `type` URLs. */
    publicBaseUrl: string | undefined;
    /** TRUSTED_HOSTS: the hosts whose `Host` header may name the origin when PUBLIC_BASE_URL is unset. */
    trustedHosts: ReadonlySet<string>;
    /** The request id: the client's `X-Request-Id` when well-formed, else a new UUID (src/http/edge-headers.ts). */
    requestId: string;
    /** Headers every answer of the request carries: see `addEdgeHeaders` in src/http/edge-headers.ts. */
    edgeHeaders: EdgeHeaders;
    /** The request's caller, resolved once (the rate budget and REST both ask): see src/http/bearer.ts. */
    caller: Promise<Caller | null | 'invalid'>;
    /** The request's trace id when tracing is on (src/observability/trace-requests.ts), for problem documents. */
    traceId: string | undefined;
    /** The bounded route label of metrics and logs: the REST operationId, once the REST router matched. */
    route: string;
    /** The `code` of the problem document the request was answered with, if any (`http_problems_total`). */
    problemCode: string;
  }
}
