import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';

/** What the internal HTTP/2 server is built from. */
export interface GrpcServerOptions {
  routes: (router: ConnectRouter) => void;
  interceptors?: Interceptor[];
}

/** The internal server with an explicit lifecycle. */
export interface GrpcServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

/**
 * Creates the internal HTTP/2 cleartext (h2c) server that speaks gRPC, gRPC-Web and Connect. Closing it
 * aborts running handlers through the adapter's shutdown signal and closes every open session, without
 * which `server.close()` would wait for idle clients forever.
 */
export function createGrpcServer({ routes, interceptors = [] }: GrpcServerOptions): GrpcServer {
  const shutdown = new AbortController();
  const server = http2.createServer(connectNodeAdapter({ routes, interceptors, shutdownSignal: shutdown.signal }));
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
    close() {
      shutdown.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      return closed;
    },
  };
}
