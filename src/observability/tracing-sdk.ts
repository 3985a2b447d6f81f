/**
 * The OpenTelemetry SDK of this server, loaded only when tracing is on (./tracing-register.ts). Traces
 * only: metrics stay Prometheus at `/metrics` and log lines stay pino on stdout, so the SDK's metric and
 * log pipelines get no readers. Everything else comes from the standard `OTEL_*` variables: the endpoint
 * and protocol of the exporter (`OTEL_EXPORTER_OTLP_PROTOCOL`, `http/protobuf` by default), the sampler
 * (`OTEL_TRACES_SAMPLER`), the batch delay (`OTEL_BSP_SCHEDULE_DELAY`), the resource (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`) and the propagators (`OTEL_PROPAGATORS`, W3C `traceparent` by default).
 */
import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** Probes and scrapes, asked every few seconds: a trace of each would bury the requests worth reading. */
const UNTRACED_PATHS = /^\/(health(\/|$)|metrics$)/;

/** Starts the SDK with the instrumentations of `node:http` (server spans) and `pg` (one span per statement). */
export function startTracing(): void {
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: 'order-api' }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
      }),
      // Statements outside a request (health probes, timers, usage flushes) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
}
