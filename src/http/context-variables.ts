/**
 * The variables the public port keeps on a request's Hono context, typed once for every middleware and
 * handler (Hono's `ContextVariableMap`): no module-level maps keyed by requests.
 */
import type { Caller } from '../core/caller.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** PUBLIC_BASE_URL, when set: the origin of problem `type` URLs. */
    publicBaseUrl: string | undefined;
    /** The request's caller, resolved once (the rate budget and REST both ask): see src/http/bearer.ts. */
    caller: Promise<Caller | null | 'invalid'>;
    /** The bounded route label of metrics and logs: the REST operationId, once the REST router matched. */
    route: string;
  }
}
