import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Metrics } from '../observability/metrics.js';

/** `InvalidArgument` -> `INVALID_ARGUMENT`, the names gRPC tooling and go-grpc-prometheus use. */
const codeName = (code: Code): string => Code[code].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/**
 * Counts every call on the internal port by service, method and status code, and times it. Placed first,
 * so calls refused by the token check are counted too. (A streaming call is counted when its response
 * starts; reflection is the only one.)
 */
export function metricsInterceptor(metrics: Pick<Metrics, 'grpcHandled' | 'grpcHandlingSeconds'>): Interceptor {
  return (next) => async (request) => {
    const labels = { grpc_service: request.service.typeName, grpc_method: request.method.name };
    const stop = metrics.grpcHandlingSeconds.startTimer(labels);
    try {
      const response = await next(request);
      metrics.grpcHandled.inc({ ...labels, grpc_code: 'OK' });
      return response;
    } catch (error) {
      metrics.grpcHandled.inc({ ...labels, grpc_code: codeName(ConnectError.from(error).code) });
      throw error;
    } finally {
      stop();
    }
  };
}
