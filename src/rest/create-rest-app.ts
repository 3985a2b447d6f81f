/**
 * The REST app for everything under the versions' prefixes (mounted once per version), driven by contracts/openapi.yaml: the pipeline's named steps
 * (./pipeline.ts) in order, then the operation's handler. Domain errors become problem documents through
 * the one error catalog.
 */

import type { DeprecationRegistry } from '@order-api/contract-registry';
import { restMatcher } from '@order-api/contract-registry/matching';
import { type ErrorHandler, Hono, type MiddlewareHandler } from 'hono';
import type { Core } from '../core/index.js';
import { createDeprecationPolicy, type DeprecationPolicy } from '../core/lifecycle/deprecation-policy.js';
import type { ShapeRecorder } from '../core/lifecycle/shapes/shape-recorder.js';
import { chain } from '../http/chain.js';
import { clientOf } from '../observability/metrics.js';
import type { RestContract } from './contract.js';
import { deprecationSignals } from './deprecation-step.js';
import { createHandlers } from './handlers.js';
import {
  authenticate,
  authorizeScope,
  dispatch,
  negotiate,
  type RestEnv,
  readQueryParameters,
  readRequestBody,
  routeRequests,
  validateRequest,
} from './pipeline.js';
import { recordRequestShapes, restShapes } from './request-shapes.js';
import { type Handler, HEALTH_OPERATIONS } from './respond.js';

/** Everything the REST app needs. */
export interface RestAppDeps {
  /** The loaded contract (./contract.ts: `readRestContract` or `loadRestContract`). */
  contract: RestContract;
  core: Core;
  /** Deprecated and watched items (generated/deprecations.json); none when absent. */
  registry?: DeprecationRegistry;
  /** The core's deprecation policy, counting per caller (default: over the core's windows, counting nowhere). */
  policy?: DeprecationPolicy;
  /** Answers an error a step throws, at that step (`problemOnError`, src/http/problem.ts). */
  onError: ErrorHandler;
  /** A step before the pipeline, on every versioned request (the rate budget, which charges 404s too). */
  admission?: MiddlewareHandler;
  /**
   * The handlers of operations a later version changes (`getOrderV2`), each the earlier handler's core
   * call with that version's mapper (`createOrderHandlers(core, mapper)`); what it leaves out is served
   * by the earlier version's operation (./router.ts).
   */
  versionHandlers?: VersionHandlers;
  /** The request-shape record (docs/decisions.md §13); nothing is recorded without it. */
  shapes?: ShapeRecorder;
}

/** Builds the handlers of a later version's own operations over the core, by operationId. */
export type VersionHandlers = (core: Core) => Record<string, Handler>;

/**
 * Builds the REST app: the steps run as one chain (src/http/chain.ts), each error answered by `onError`
 * where it is thrown, so the steps around it see the problem's status.
 */
export function createRestApp({
  contract,
  core,
  registry = { items: [] },
  policy = createDeprecationPolicy({ brownouts: core.brownouts }),
  onError,
  admission,
  versionHandlers,
  shapes,
}: RestAppDeps): Hono<RestEnv> {
  const handlers: Record<string, Handler> = { ...createHandlers(core), ...versionHandlers?.(core) };
  // The compiler knows the generated contract's operations; a contract loaded at run time (another
  // checkout's, in tests) may hold one that no handler serves.
  const healthOperations: readonly string[] = HEALTH_OPERATIONS;
  for (const operation of contract.api.getOperations()) {
    const id = operation.operationId as string;
    if (!healthOperations.includes(id) && !handlers[id])
      throw new Error(`the contract's operation ${id} has no handler`);
  }
  const matcher = restMatcher(registry, contract.definition);
  const app = new Hono<RestEnv>();
  app.all(
    '*',
    chain<RestEnv>(
      [
        ...(admission ? [admission] : []),
        routeRequests(contract),
        negotiate(),
        authenticate(contract, core),
        authorizeScope(contract),
        readQueryParameters(contract),
        readRequestBody(contract),
        validateRequest(contract),
        ...(shapes
          ? [
              recordRequestShapes(
                restShapes(contract.definition),
                (caller, names) => shapes.record('rest', caller, names),
                clientOf,
              ),
            ]
          : []),
        deprecationSignals({ matcher, policy }),
        dispatch(handlers),
      ],
      onError,
    ),
  );
  return app;
}
