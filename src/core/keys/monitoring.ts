import { type Caller, requireAdmin, requireScope } from '../shared/index.js';

/**
 * Who may read the service's operational metrics (request counts, pool and limiter state, per-client
 * figures): admins only, since they name clients and reveal load, with a key that holds `admin`.
 */
export function requireMetricsReader(caller: Caller): void {
  requireScope(caller, 'admin');
  requireAdmin(caller, 'read the metrics');
}
