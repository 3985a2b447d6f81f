/**
 * The internal port, composed: the gRPC server — connect-node (HTTP/2: gRPC, gRPC-Web, Connect) or, with
 * `GRPC_SERVER=grpc-js`, @grpc/grpc-js (gRPC only) — with the Inventory service, the standard health and
 * reflection services, and the wrappers every Inventory call passes through on either host (metrics, the
 * internal token when one is set, deprecation signals and brownouts).
 */

import type { DescService } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Tracer } from '@opentelemetry/api';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { grpcMatcher } from '@order-api/contract-registry/matching';
import { Health } from '../../generated/proto/grpc/health/v1/health_pb.js';
import { ServerReflection } from '../../generated/proto/grpc/reflection/v1/reflection_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { StockWatch } from '../core/events/stock-watch.js';
import type { Core } from '../core/index.js';
import type { InventoryService } from '../core/inventory/inventory.js';
import type { DeprecationPolicy } from '../core/lifecycle/deprecation-policy.js';
import type { ShapeRecorder } from '../core/lifecycle/shapes/shape-recorder.js';
import { apiKeyWrapper, internalTokenWrapper } from '../grpc/auth.js';
import { createGrpcServer } from '../grpc/create-grpc-server.js';
import { deprecationWrapper } from '../grpc/deprecation-interceptor.js';
import { createGrpcJsServer } from '../grpc/grpc-js-server.js';
import { healthService } from '../grpc/health-service.js';
import { validateRequests } from '../grpc/input-rules.js';
import { inventoryService } from '../grpc/inventory-service.js';
import { metricsWrapper } from '../grpc/metrics-interceptor.js';
import { reflectionRoutes } from '../grpc/reflection-service.js';
import { wrapService } from '../grpc/service-wrappers.js';
import { shapeWrapper } from '../grpc/shape-wrapper.js';
import { continueTraces } from '../grpc/trace-interceptors.js';
import { clientOf, type Metrics } from '../observability/metrics.js';

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
  /** Serves `WatchStock` (over the process's event feed). */
  watchStock?: StockWatch;
  /** Aborts when the server starts draining: open `WatchStock` streams end with OK at once. */
  draining?: AbortSignal;
  /** When tracing is on: each call continues the trace of its `traceparent` header in a server span. */
  tracer?: Tracer;
  /**
   * The library that serves the port: connect-node (gRPC, gRPC-Web and Connect; the default) or
   * @grpc/grpc-js (gRPC only, at several times the calls per core).
   */
  host?: GrpcServerHost;
  /** GRPC_MAX_CONCURRENT_STREAMS: calls open at once per HTTP/2 connection (default 100). */
  maxConcurrentStreams?: number;
  /** The request-shape record (docs/decisions.md §13); nothing is recorded without it. */
  shapes?: ShapeRecorder | undefined;
  /** Packages a later version cuts beside inventory.v1 (`inventory.v2`), each over the same inventory core. */
  versionServices?: readonly VersionService[] | undefined;
}

/** A service of a later package: its descriptor and its mapping over the inventory core. */
export interface VersionService {
  service: DescService;
  implementation: (inventory: InventoryService) => Partial<ServiceImpl<DescService>>;
}

/** The libraries the internal port can be served with (`GRPC_SERVER`). */
export type GrpcServerHost = 'connect' | 'grpc-js';

/** Builds the gRPC server of the configured host; `listen` it on the internal port. */
export function createInternalApp({
  core,
  inventory: inventoryCore,
  metrics,
  registry,
  deprecationPolicy,
  internalToken,
  isServing,
  watchStock,
  draining,
  tracer,
  host = 'grpc-js',
  maxConcurrentStreams,
  versionServices = [],
  shapes,
}: InternalAppDeps) {
  // The rules every call passes through, the same on both hosts: its trace continued (tracing on), counted
  // (refusals too), then the internal token, then the `x-api-key` a call may send, then deprecation signals and brownouts, then the input rules.
  const counted = metricsWrapper(metrics);
  const wrappers = [
    ...(tracer ? [continueTraces(tracer)] : []),
    counted,
    ...(internalToken ? [internalTokenWrapper(internalToken)] : []),
    apiKeyWrapper((secret) => core.apiKeys.authenticate(secret)),
    ...(shapes ? [shapeWrapper((caller, names) => shapes.record('grpc', caller, names), clientOf)] : []),
    deprecationWrapper({ matcher: grpcMatcher(registry), policy: deprecationPolicy }),
    // Last: a request is checked against the proto's rules (buf.validate) once it may be served at all.
    validateRequests,
  ];
  const implementation = inventoryService(inventoryCore, {
    ...(watchStock ? { watchStock } : {}),
    ...(draining ? { draining } : {}),
  });
  const inventory = wrapService(Inventory, implementation, wrappers);
  const later = versionServices.map(({ service, implementation }) => ({
    service,
    implementation: wrapService(service, implementation(inventoryCore), wrappers),
  }));
  const names = [Inventory, ...later.map(({ service }) => service)].map((service) => service.typeName);
  // Health checks are counted too; they need no token and use no registry item.
  const health = wrapService(Health, healthService({ services: names, isServing }), [counted]);
  if (host === 'grpc-js') {
    return createGrpcJsServer({
      services: [
        { service: Inventory, implementation: inventory },
        { service: Health, implementation: health },
        ...later,
      ],
      reflection: [Inventory, ...later.map(({ service }) => service), Health, ServerReflection],
      ...(maxConcurrentStreams ? { maxConcurrentStreams } : {}),
    });
  }
  const reflection = reflectionRoutes([Inventory, ...later.map(({ service }) => service), Health]);
  return createGrpcServer({
    routes: (router) => {
      router.service(Health, health);
      router.service(Inventory, inventory);
      for (const { service, implementation } of later) router.service(service, implementation);
      reflection(router);
    },
    ...(maxConcurrentStreams ? { maxConcurrentStreams } : {}),
  });
}
