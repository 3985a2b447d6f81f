/**
 * The internal port on @grpc/grpc-js (`GRPC_SERVER=grpc-js`): the same Connect `ServiceImpl`s the
 * connect-node host runs, with the generated @bufbuild/protobuf schemas as per-method codecs. It serves
 * the gRPC protocol only (no Connect protocol, no gRPC-Web, no HTTP/1.1: docs/configuration.md). Each call
 * gets a Connect `HandlerContext` built from the grpc-js call (request metadata, response metadata and
 * trailers, a signal that aborts on cancellation or at the deadline), and a `ConnectError` leaves with the
 * same status code, message and `grpc-status-details-bin` (google.rpc.Status with the ErrorInfo details)
 * as connect-node sends.
 */
import type { AddressInfo } from 'node:net';
import {
  create,
  type DescMethod,
  type DescService,
  fromBinary,
  isMessage,
  type Message,
  toBinary,
} from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import * as grpc from '@grpc/grpc-js';
import { DEFAULT_MAX_CONCURRENT_STREAMS, MAX_MESSAGE_BYTES } from './create-grpc-server.js';
import { MAX_STATUS_MESSAGE_CHARS } from './errors.js';
import { CallContext, statusOf } from './grpc-js-context.js';
import { reflectionService } from './grpc-js-reflection.js';

/** A service and the implementation the host runs for it. */
export interface HostedService {
  service: DescService;
  // biome-ignore lint/suspicious/noExplicitAny: each method's handler is called with its own message types
  implementation: Record<string, any>;
}

/** What the grpc-js server is built from. */
export interface GrpcJsServerOptions {
  services: readonly HostedService[];
  /** The services reflection describes (@grpc/reflection over the generated descriptors). */
  reflection?: readonly DescService[];
  /** GRPC_MAX_CONCURRENT_STREAMS: calls open at once per HTTP/2 connection. */
  maxConcurrentStreams?: number;
}

/** The same lifecycle as the connect-node host's. */
export interface GrpcJsServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Drains: running calls finish (cancelled after `graceMs`), then the server closes. */
  close(graceMs?: number): Promise<void>;
}

/** Creates the grpc-js server with the services, health and reflection registered. */
export function createGrpcJsServer({
  services,
  reflection = [],
  maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS,
}: GrpcJsServerOptions): GrpcJsServer {
  const server = new grpc.Server({
    // As on connect-node: larger messages, and compressed ones that inflate beyond it, are RESOURCE_EXHAUSTED
    // before any handler runs (grpc-js checks the inflated size while it decompresses).
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_concurrent_streams': maxConcurrentStreams,
  });
  for (const hosted of services) addService(server, hosted);
  if (reflection.length > 0) reflectionService(reflection).addToServer(server);
  let address: AddressInfo | undefined;

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.bindAsync(
          `${host.includes(':') ? `[${host}]` : host}:${port}`,
          grpc.ServerCredentials.createInsecure(),
          (error, bound) => {
            if (error) return reject(error);
            address = { address: host, family: host.includes(':') ? 'IPv6' : 'IPv4', port: bound };
            resolve(address);
          },
        );
      });
    },
    close(graceMs = 8000) {
      if (!address) return Promise.resolve();
      // Stop taking calls; each session gets GOAWAY and closes once its calls finished. Calls still running
      // after the grace period are cancelled, which aborts their handlers' signals.
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/** Registers one service: a grpc-js method definition per method, with @bufbuild/protobuf codecs. */
function addService(server: grpc.Server, { service, implementation }: HostedService): void {
  const definition: Record<string, grpc.MethodDefinition<Buffer, Message>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handler = implementation[method.localName];
    if (typeof handler !== 'function') continue;
    const requestStream = method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming';
    if (requestStream) continue; // No service hosted here takes a request stream (reflection is @grpc/reflection's).
    const responseStream = method.methodKind === 'server_streaming';
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream,
      responseStream,
      // A server only reads requests and writes replies; the other two directions are a client's.
      requestSerialize: rawBytes,
      requestDeserialize: rawBytes,
      responseSerialize: serializer(method.output),
      responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
      originalName: method.localName,
    };
    handlers[method.localName] = responseStream
      ? serverStreamingHandler(method, handler)
      : unaryHandler(method, handler);
  }
  server.addService(definition, handlers);
}

type Schema = DescMethod['input'];

const serializer = (schema: Schema) => (message: Message) => {
  const bytes = toBinary(schema, isMessage(message, schema) ? message : create(schema, message as never));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

/**
 * Requests are decoded in the handler, not by grpc-js, so that an undecodable one is answered as
 * connect-node answers it: INTERNAL, the message naming the cause (grpc-js would hide it).
 */
const rawBytes = (bytes: Buffer) => bytes;

/** The request decoded, or the status that refuses it. */
function decode(schema: Schema, bytes: Buffer): Message | Partial<grpc.StatusObject> {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    return { code: grpc.status.INTERNAL, details: `parse binary: ${cause}`.slice(0, MAX_STATUS_MESSAGE_CHARS) };
  }
}

/** A unary method: the handler's reply (or error) with the context's headers and trailers. */
function unaryHandler(method: DescMethod, handler: (request: Message, context: HandlerContext) => unknown) {
  return (call: grpc.ServerUnaryCall<Buffer, Message>, callback: grpc.sendUnaryData<Message>) => {
    const request = decode(method.input, call.request);
    if (!isMessage(request)) return callback(request);
    const context = new CallContext(method, call);
    let reply: Promise<unknown>;
    try {
      reply = Promise.resolve(handler(request, context));
    } catch (error) {
      reply = Promise.reject(error);
    }
    reply.then(
      (message) => {
        context.end();
        context.sendHeader();
        callback(null, message as Message, context.trailer());
      },
      (error: unknown) => {
        context.end();
        context.sendHeader();
        callback(statusOf(error, context));
      },
    );
  };
}

/**
 * A server-streaming method (`WatchStock`, health's `Watch`): each message the handler yields, then the
 * status. A reader slower than the stream holds the handler back (the next message waits for `drain`).
 */
function serverStreamingHandler(method: DescMethod, handler: (request: Message, context: HandlerContext) => unknown) {
  return async (call: grpc.ServerWritableStream<Buffer, Message>) => {
    const request = decode(method.input, call.request);
    if (!isMessage(request)) return void call.emit('error', request);
    const context = new CallContext(method, call);
    try {
      for await (const message of handler(request, context) as AsyncIterable<Message>) {
        context.sendHeader();
        if (!call.write(message)) await drained(call, context.signal);
      }
      context.end();
      context.sendHeader();
      call.end(context.trailer());
    } catch (error) {
      context.end();
      context.sendHeader();
      call.emit('error', statusOf(error, context));
    }
  };
}

/** Resolves when the call's write buffer drained, or when the call ended (cancelled, past its deadline). */
function drained(call: grpc.ServerWritableStream<Buffer, Message>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
  });
}
