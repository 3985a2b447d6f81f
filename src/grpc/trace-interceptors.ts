import type { Interceptor } from '@connectrpc/connect';
import { Code, ConnectError } from '@connectrpc/connect';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import type { CallWrapper } from './service-wrappers.js';

/** W3C trace context (`traceparent`, `tracestate`) in a call's headers, through the registered propagator. */
const setter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) };
const getter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** The span of a call, named `inventory.v1.Inventory/Reserve` with the `rpc.*` attributes of OpenTelemetry. */
function spanOptions(request: Parameters<Parameters<Interceptor>[0]>[0], kind: SpanKind) {
  return {
    kind,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': request.service.typeName, 'rpc.method': request.method.name },
  };
}

async function traced<T>(span: Span, call: () => Promise<T>): Promise<T> {
  try {
    const response = await call();
    // 0 is OK, which connect's `Code` does not list.
    span.setAttribute('rpc.grpc.status_code', 0);
    return response;
  } catch (error) {
    const code = ConnectError.from(error).code;
    span.setAttribute('rpc.grpc.status_code', code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: Code[code] });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A client call as a child span of the caller's (the use case placing an order), its context carried in
 * the call's `traceparent` header; in-process over the router transport too, so the trace looks the
 * same whether the inventory runs here or elsewhere.
 */
export function traceClientCalls(tracer: Tracer): Interceptor {
  return (next) => (request) => {
    const name = `${request.service.typeName}/${request.method.name}`;
    return tracer.startActiveSpan(name, spanOptions(request, SpanKind.CLIENT), (span) =>
      traced(span, () => {
        propagation.inject(context.active(), request.header, setter);
        return next(request);
      }),
    );
  };
}

/**
 * A served call continues the trace its `traceparent` header names (or starts one) with a server span: a
 * wrapper around the service implementation, so both gRPC hosts (connect-node and grpc-js) trace alike.
 */
export function continueTraces(tracer: Tracer): CallWrapper {
  return (method, next) => {
    const name = `${method.parent.typeName}/${method.name}`;
    const options = {
      kind: SpanKind.SERVER,
      attributes: { 'rpc.system': 'grpc', 'rpc.service': method.parent.typeName, 'rpc.method': method.name },
    };
    return (request, handlerContext) => {
      const parent = propagation.extract(ROOT_CONTEXT, handlerContext.requestHeader, getter);
      return tracer.startActiveSpan(name, options, parent, (span) => traced(span, () => next(request, handlerContext)));
    };
  };
}
