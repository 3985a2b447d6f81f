/**
 * The internal port, composed: the gRPC server (HTTP/2: gRPC, gRPC-Web, Connect) with the Inventory
 * service, the standard health and reflection services, and the interceptors every call passes through
 * (metrics, the internal token when one is set, deprecation signals and brownouts).
 */
import type { Tracer } from '@opentelemetry/api';
import { Health } from '../../generated/proto/grpc/health/v1/health_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { DeprecationPolicy } from '../core/deprecation-policy.js';
import type { DeprecationRegistry } from '../core/deprecation-registry.js';
import type { Core } from '../core/index.js';
import type { InventoryService } from '../core/inventory.js';
import { grpcMatcher } from '../deprecation-matching/grpc.js';
import { internalTokenInterceptor } from '../grpc/auth.js';
import { createGrpcServer } from '../grpc/create-grpc-server.js';
import { deprecationInterceptor } from '../grpc/deprecation-interceptor.js';
import { healthRoutes } from '../grpc/health-service.js';
import { inventoryRoutes } from '../grpc/inventory-service.js';
import { metricsInterceptor } from '../grpc/metrics-interceptor.js';
import { reflectionRoutes } from '../grpc/reflection-service.js';
import { continueTraces } from '../grpc/trace-interceptors.js';
import type { Metrics } from '../observability/metrics.js';

/** What the internal port is built from. */
export interface InternalAppDeps {
  core: Core;
  /** The service the Inventory routes serve (it stands beside the core). */
  inventory: InventoryService;
  metrics: Metrics;
  registry: DeprecationRegistry;
  /** The core's deprecation policy, counting uses per caller. */
  deprecationPolicy: DeprecationPolicy;
  /** When set, every call must carry `authorization: Bearer <token>`. */
  internalToken?: string;
  /** Whether the health service answers SERVING (false while draining). */
  isServing: () => boolean;
  /** When tracing is on: each call continues the trace of its `traceparent` header in a server span. */
  tracer?: Tracer;
}

/** Builds the gRPC server; `listen` it on the internal port. */
export function createInternalApp({
  core,
  inventory: inventoryService,
  metrics,
  registry,
  deprecationPolicy,
  internalToken,
  isServing,
  tracer,
}: InternalAppDeps) {
  const health = healthRoutes({ services: ['inventory.v1.Inventory'], isServing });
  const inventory = inventoryRoutes(inventoryService);
  const reflection = reflectionRoutes([Inventory, Health]);
  return createGrpcServer({
    routes: (router) => {
      health(router);
      inventory(router);
      reflection(router);
    },
    interceptors: [
      ...(tracer ? [continueTraces(tracer)] : []),
      metricsInterceptor(metrics),
      ...(internalToken ? [internalTokenInterceptor(internalToken)] : []),
      deprecationInterceptor({
        matcher: grpcMatcher(registry),
        policy: deprecationPolicy,
        authenticate: (secret) => core.apiKeys.authenticate(secret),
      }),
    ],
  });
}
