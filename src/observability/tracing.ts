/**
 * What the app asks of tracing, through `@opentelemetry/api` only (the SDK is loaded, or not, by
 * ./tracing-register.ts before the app): whether a tracer provider is registered, the trace fields of a
 * log line, and the flush before exit. With no provider every helper here is a no-op, and the composition
 * root adds no tracing decorator at all.
 */
import { ProxyTracerProvider, type Tracer, trace } from '@opentelemetry/api';

/** The instrumentation scope of the spans this app writes itself. */
const SCOPE = 'order-api';

/** The app's tracer when a tracer provider is registered (tracing on), else undefined. */
export function activeTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  // The API hands out a proxy; it has a delegate only once an SDK registered its provider.
  return provider instanceof ProxyTracerProvider ? provider.getDelegateTracer(SCOPE) : provider.getTracer(SCOPE);
}

/**
 * pino's `mixin`: the trace and span of the active span on every line written while it is active, so
 * that each log line of a request names its trace.
 */
export function traceLogFields(): { traceId?: string; spanId?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** Exports the spans still batched (before the process exits); nothing when tracing is off. */
export async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) as {
    forceFlush?: () => Promise<void>;
  };
  await delegate.forceFlush?.();
}
