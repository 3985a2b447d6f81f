import { type Attributes, type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_CODE_FUNCTION_NAME, ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/**
 * Members (`service.member`) and whole services of the core that are no use cases, left out: synchronous
 * lookups run several times a request, the cursor codec, and the timers' work (a brownout reload every few
 * seconds would be a trace of its own each time).
 */
const UNTRACED: ReadonlySet<string> = new Set([
  'cursors',
  'idempotency',
  'brownouts.refresh',
  'brownouts.retireOrphans',
  'brownouts.refusal',
  'brownouts.announced',
  'brownouts.empty',
  'orders.amountDetail',
]);

/**
 * The core with a span around every call of its services (`orders.place`, `apiKeys.authenticate`…) when
 * tracing is on (a tracer given), applied by the composition root, so that src/core knows nothing of tracing.
 * Each span is the active one while the call runs, so the SQL and the inventory call it makes are its
 * children. A call that fails records the exception and, for a domain error, its catalog code.
 */
export function traceCore<T extends object>(core: T, tracer: Tracer | undefined, untraced = UNTRACED): T {
  if (!tracer) return core;
  const traced: Record<string, unknown> = {};
  for (const [name, service] of Object.entries(core)) {
    traced[name] =
      untraced.has(name) || typeof service !== 'object' || service === null
        ? service
        : traceService(name, service as Record<string, unknown>, tracer, untraced);
  }
  return traced as T;
}

function traceService(
  service: string,
  members: Record<string, unknown>,
  tracer: Tracer,
  untraced: ReadonlySet<string>,
): Record<string, unknown> {
  const traced: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(members)) {
    const name = `${service}.${member}`;
    traced[member] =
      typeof value === 'function' && !untraced.has(name)
        ? tracedCall(name, value as (...args: unknown[]) => unknown, tracer)
        : value;
  }
  return traced;
}

function tracedCall(name: string, call: (...args: unknown[]) => unknown, tracer: Tracer) {
  const attributes: Attributes = { [ATTR_CODE_FUNCTION_NAME]: name };
  return (...args: unknown[]) =>
    tracer.startActiveSpan(name, { attributes }, (span) => {
      let result: unknown;
      try {
        result = call(...args);
      } catch (error) {
        failed(span, error);
        span.end();
        throw error;
      }
      if (!(result instanceof Promise)) {
        span.end();
        return result;
      }
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          failed(span, error);
          span.end();
          throw error;
        },
      );
    });
}

function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
  span.setAttribute(ATTR_ERROR_TYPE, type);
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}
