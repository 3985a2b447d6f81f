import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  Health,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from '../../generated/proto/grpc/health/v1/health_pb.js';

/** What the health service reports: the served service names and whether the server takes calls. */
export interface HealthServiceOptions {
  services: readonly string[];
  isServing: () => boolean;
}

/**
 * Registers the standard `grpc.health.v1.Health` service. The empty name stands for the whole server;
 * while the server drains on shutdown every service reports NOT_SERVING.
 */
export function healthService({ services, isServing }: HealthServiceOptions): ServiceImpl<typeof Health> {
  const known = new Set(['', ...services]);
  const statusOf = (service: string): HealthCheckResponse => {
    if (!known.has(service))
      return create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN });
    const status = isServing()
      ? HealthCheckResponse_ServingStatus.SERVING
      : HealthCheckResponse_ServingStatus.NOT_SERVING;
    return create(HealthCheckResponseSchema, { status });
  };

  return {
    check(request) {
      if (!known.has(request.service)) throw new ConnectError(`unknown service "${request.service}"`, Code.NotFound);
      return statusOf(request.service);
    },
    // The status of a running server changes only when it starts draining, which ends the stream anyway.
    async *watch(request, context: HandlerContext) {
      yield statusOf(request.service);
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
}

/** Registers the health service on a connect router. */
export function healthRoutes(options: HealthServiceOptions) {
  const implementation = healthService(options);
  return (router: ConnectRouter) => router.service(Health, implementation);
}
