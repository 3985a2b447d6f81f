/**
 * The rules every call to the internal port passes through (metrics, the internal token, deprecation
 * signals and brownouts), written once as wrappers around a Connect `ServiceImpl`, so that both hosts —
 * connect-node and @grpc/grpc-js (docs/configuration.md, `GRPC_SERVER`) — run the same checks and neither
 * host owns a rule. A wrapper sees what a connect interceptor saw: the method, the request message, the
 * `HandlerContext` (request headers, response headers and trailers, signal, deadline) and the reply or
 * the error.
 */
import { create, type DescMethod, type DescService, isMessage, type Message } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';

/** One unary call as a wrapper sees it: the request in, the reply (a full message) out. */
export type UnaryCall = (request: Message, context: HandlerContext) => Promise<Message>;

/** Wraps the calls of one method; `next` runs the rest of the chain and the handler. */
export type CallWrapper = (method: DescMethod, next: UnaryCall) => UnaryCall;

type AnyHandler = (request: Message, context: HandlerContext) => unknown;

/**
 * The service implementation with `wrappers` around each unary method, the first outermost. Streaming
 * methods pass unchanged (the Inventory service has none yet). The reply leaves the chain as a full
 * message even when the handler returned a plain object, so wrappers can read and trim it.
 */
export function wrapService<S extends DescService>(
  service: S,
  implementation: Partial<ServiceImpl<S>>,
  wrappers: readonly CallWrapper[],
): Partial<ServiceImpl<S>> {
  if (wrappers.length === 0) return implementation;
  const wrapped: Record<string, unknown> = { ...implementation };
  for (const method of service.methods) {
    const handler = (implementation as Record<string, AnyHandler | undefined>)[method.localName];
    if (!handler || method.methodKind !== 'unary') continue;
    let call: UnaryCall = async (request, context) => {
      const reply = await handler(request, context);
      return isMessage(reply, method.output) ? reply : create(method.output, reply as never);
    };
    for (let index = wrappers.length - 1; index >= 0; index--) call = (wrappers[index] as CallWrapper)(method, call);
    wrapped[method.localName] = call;
  }
  return wrapped as Partial<ServiceImpl<S>>;
}
