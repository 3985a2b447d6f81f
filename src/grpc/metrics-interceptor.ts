import { Code, ConnectError } from '@connectrpc/connect';
import type { Metrics } from '../observability/metrics.js';
import type { CallWrapper } from './service-wrappers.js';

/** `InvalidArgument` -> `INVALID_ARGUMENT`, the names gRPC tooling and go-grpc-prometheus use. */
const codeName = (code: Code): string => Code[code].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/**
 * Counts every call of a wrapped service by service, method and status code, and times it (a stream from
 * its start to its end, counted once it ended). Placed first, so calls refused by the token check are
 * counted too. Both gRPC hosts apply it.
 */
export function metricsWrapper(metrics: Pick<Metrics, 'grpcHandled' | 'grpcHandlingSeconds'>): CallWrapper {
  return (method, next) => {
    const labels = { grpc_service: method.parent.typeName, grpc_method: method.name };
    // The series of each method's answered calls and of its timings, found once rather than per call.
    const handledOk = metrics.grpcHandled.labels({ ...labels, grpc_code: 'OK' });
    const timing = metrics.grpcHandlingSeconds.labels(labels);
    return async (request, context) => {
      const started = performance.now();
      try {
        const response = await next(request, context);
        handledOk.inc();
        return response;
      } catch (error) {
        metrics.grpcHandled.inc({ ...labels, grpc_code: codeName(ConnectError.from(error).code) });
        throw error;
      } finally {
        timing.observe((performance.now() - started) / 1000);
      }
    };
  };
}
