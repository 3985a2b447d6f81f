import { setMaxListeners } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { type ConnectNodeAdapterOptions, connectNodeAdapter } from '@connectrpc/connect-node';

type NodeHandler = NonNullable<ConnectNodeAdapterOptions['fallback']>;

/** The largest message read or written, compressed or after decompression: 4 MiB, the default of grpc-js and grpc-go. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The most calls one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS), on both
 * hosts; a client opens another connection or waits. Without it one connection held 1,000 WatchStock streams.
 */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 100;

/**
 * Answers a path no route serves. A gRPC client gets `UNIMPLEMENTED` (status 12) as the gRPC spec
 * requires, in a trailers-only response; other protocols get a bare 404, as the adapter would send.
 */
const unimplemented: NodeHandler = (request, response) => {
  const contentType = request.headers['content-type'] ?? '';
  if (contentType.startsWith('application/grpc') && 'stream' in response) {
    // Trailers-only: the status travels in the one HEADERS frame, which ends the stream.
    response.stream.respond(
      {
        ':status': 200,
        'content-type': contentType.startsWith('application/grpc-web')
          ? 'application/grpc-web+proto'
          : 'application/grpc',
        'grpc-status': '12',
        'grpc-message': encodeURIComponent(`unknown method ${(request.url ?? '').slice(0, 200)}`),
      },
      { endStream: true },
    );
    return;
  }
  response.writeHead(404);
  response.end();
};

/** What the internal HTTP/2 server is built from. */
export interface GrpcServerOptions {
  routes: (router: ConnectRouter) => void;
  interceptors?: Interceptor[];
  /** GRPC_MAX_CONCURRENT_STREAMS: calls open at once per HTTP/2 connection. */
  maxConcurrentStreams?: number;
}

/** The internal server with an explicit lifecycle. */
export interface GrpcServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Drains: running calls finish (aborted after `graceMs`), then the server closes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Creates the internal HTTP/2 cleartext (h2c) server that speaks gRPC, gRPC-Web and Connect. Closing it
 * closes every open session gracefully (without which `server.close()` would wait for idle clients
 * forever), and aborts handlers through the adapter's shutdown signal only if they outlive the grace.
 */
export function createGrpcServer({
  routes,
  interceptors = [],
  maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS,
}: GrpcServerOptions): GrpcServer {
  const shutdown = new AbortController();
  // connect-node links every call's signal to this one, adding a listener per call in flight and removing
  // it when the call ends: with more than ten calls at once Node warned of a leak that is not one.
  setMaxListeners(0, shutdown.signal);
  const server = http2.createServer(
    { settings: { maxConcurrentStreams } },
    connectNodeAdapter({
      routes,
      interceptors,
      shutdownSignal: shutdown.signal,
      // Larger messages, and compressed ones that inflate beyond it, are RESOURCE_EXHAUSTED before any
      // handler runs; without a limit a 64 KiB gzip bomb inflates to whatever it claims.
      readMaxBytes: MAX_MESSAGE_BYTES,
      writeMaxBytes: MAX_MESSAGE_BYTES,
      fallback: unimplemented,
    }),
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve(server.address() as AddressInfo));
      });
    },
    close(graceMs = 8000) {
      // Stop taking sessions; each open session sends GOAWAY, finishes the calls it has and then closes.
      // Calls still running after the grace period are aborted through the adapter's shutdown signal.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const force = setTimeout(() => {
        shutdown.abort();
        for (const session of sessions) session.destroy();
      }, graceMs);
      force.unref();
      return closed.finally(() => {
        clearTimeout(force);
        shutdown.abort();
      });
    },
  };
}
