import { type Caller, requireAdmin } from './caller.js';

/**
 * Who may read the service's operational metrics (request counts, pool and limiter state, per-client
 * figures): admins only, since they name clients and reveal load.
 */
export function requireMetricsReader(caller: Caller): void {
  requireAdmin(caller, 'read the metrics');
}
