/**
 * The rules every call to the internal port passes through (metrics, the internal token, deprecation
 * signals and brownouts), written once as wrappers around a Connect `ServiceImpl`, so that both hosts —
 * connect-node and @grpc/grpc-js (docs/configuration.md, `GRPC_SERVER`) — run the same checks and neither
 * host owns a rule. A wrapper sees what a connect interceptor saw: the method, the request message, the
 * `HandlerContext` (request headers, response headers and trailers, signal, deadline) and the reply or
 * the error.
 */
import { create, type DescMethod, type DescService, isMessage, type Message } from '@bufbuild/protobuf';
import { createContextKey, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import { createHandoff, type Handoff } from './handoff.js';

/** One unary call as a wrapper sees it: the request in, the reply (a full message) out. */
export type UnaryCall = (request: Message, context: HandlerContext) => Promise<Message>;

/**
 * Wraps the calls of one method; `next` runs the rest of the chain and the handler. A server-streaming
 * call passes through the same wrappers as one unary call that lasts as long as the stream: `next`
 * settles when the stream ends (its reply is the output type's empty message, the messages themselves
 * flow past the chain), so a wrapper refuses it before the first message, counts and times it whole,
 * and sees how it ended. Response headers a wrapper sets before calling `next` go out with the first
 * message.
 */
export type CallWrapper = (method: DescMethod, next: UnaryCall) => UnaryCall;

type AnyHandler = (request: Message, context: HandlerContext) => unknown;

/** Where the messages of a wrapped stream go past the chain, per call. */
const streamOut = createContextKey<Handoff<Message> | undefined>(undefined, { description: 'stream output' });

/**
 * The service implementation with `wrappers` around each unary and server-streaming method, the first
 * outermost. A unary reply leaves the chain as a full message even when the handler returned a plain
 * object, so wrappers can read and trim it.
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
    if (!handler || (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming')) continue;
    const asReply = (reply: unknown) =>
      isMessage(reply, method.output) ? reply : create(method.output, reply as never);
    let call: UnaryCall =
      method.methodKind === 'unary'
        ? (request, context) => callOn(handler as UnaryCall, request, context).then(asReply)
        : async (request, context) => {
            const out = context.values.get(streamOut) as Handoff<Message>;
            for await (const message of handler(request, context) as AsyncIterable<Message>) {
              if (!(await out.put(isMessage(message, method.output) ? message : create(method.output, message)))) break;
            }
            return create(method.output);
          };
    for (let index = wrappers.length - 1; index >= 0; index--) call = (wrappers[index] as CallWrapper)(method, call);
    wrapped[method.localName] = method.methodKind === 'unary' ? call : streamThrough(call);
  }
  return wrapped as Partial<ServiceImpl<S>>;
}

/**
 * `next(request, context)`, with a synchronous throw as a rejection: the wrappers chain promises rather
 * than async frames (one frame fewer per wrapper on every call), and a wrapper must still see every failure.
 */
export function callOn(next: UnaryCall, request: Message, context: HandlerContext): Promise<Message> {
  try {
    return Promise.resolve(next(request, context));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A server-streaming handler that runs `chain` and yields the messages its innermost call hands out. */
function streamThrough(chain: UnaryCall) {
  return async function* (request: Message, context: HandlerContext): AsyncGenerator<Message> {
    const out = createHandoff<Message>();
    context.values.set(streamOut, out);
    const ended = chain(request, context).then(
      () => out.end(),
      (error: unknown) => out.fail(error),
    );
    try {
      for (let next = await out.take(); !next.done; next = await out.take()) yield next.value;
    } finally {
      // The host stopped reading (the caller went away): the chain stops at its next message.
      out.stop();
      await ended;
    }
  };
}
