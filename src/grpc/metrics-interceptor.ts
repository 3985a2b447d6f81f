import { Code, ConnectError } from '@connectrpc/connect';
import type { Metrics } from '../observability/metrics.js';
import { type CallWrapper, callOn } from './service-wrappers.js';

/** `InvalidArgument` -> `INVALID_ARGUMENT`, the names gRPC tooling and go-grpc-prometheus use. */
const codeName = (code: Code): string => Code[code].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/**
 * Counts every call of a wrapped service by service, method and status code, and times it (a stream from
 * its start to its end, counted once it ended). Placed first, so calls refused by the token check are
 * counted too. Both gRPC hosts apply it.
 */
export function metricsWrapper(
  metrics: Pick<Metrics, 'grpcHandled' | 'grpcAnswered' | 'grpcHandlingSeconds'>,
): CallWrapper {
  return (method, next) => {
    const labels = { grpc_service: method.parent.typeName, grpc_method: method.name };
    // The series of each method's answered calls and of its timings, found once rather than per call.
    const answered = metrics.grpcAnswered(labels);
    const timing = metrics.grpcHandlingSeconds.labels(labels);
    // Promise callbacks rather than an async frame: this wrapper runs on every call.
    return (request, context) => {
      const started = performance.now();
      return callOn(next, request, context).then(
        (response) => {
          answered.count += 1;
          timing.observe((performance.now() - started) / 1000);
          return response;
        },
        (error: unknown) => {
          metrics.grpcHandled.inc({ ...labels, grpc_code: codeName(ConnectError.from(error).code) });
          timing.observe((performance.now() - started) / 1000);
          throw error;
        },
      );
    };
  };
}
