import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { MiddlewareHandler } from 'hono';

/** How long sockets that were idle when the drain began may still bring one last request. */
const IDLE_GRACE_MS = 500;

/** Graceful shutdown of the public HTTP/1.1 server. */
export interface HttpDrain {
  /** Counts requests in flight and, once draining, answers each with `Connection: close`. */
  middleware: MiddlewareHandler;
  /**
   * Stops accepting connections, lets every request in flight finish, closes each kept-alive connection
   * after its current answer, and resolves when no connection and no handler is left.
   */
  drain(server: Server): Promise<void>;
}

/**
 * Creates the drain. `server.close()` alone is not enough under keep-alive load: a connection that always
 * has a request in flight never becomes idle, so it would keep being served until the forced exit. Every
 * answer given once the drain has begun carries `Connection: close`, so each connection ends after the
 * request it is serving, and the client opens its next one elsewhere (or learns the port is closed).
 */
export function createHttpDrain(): HttpDrain {
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  return {
    async middleware(c, next) {
      inFlight++;
      try {
        await next();
      } finally {
        if (draining) c.header('Connection', 'close');
        inFlight--;
        if (inFlight === 0) idle?.();
      }
    },
    async drain(server) {
      draining = true;
      // net.Server's close stops accepting and waits for the connections; http.Server's close would also
      // drop idle keep-alive sockets at once, racing a request the client is sending on one right now.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_GRACE_MS);
      try {
        await closed;
        // A handler whose client went away still runs: wait for it before the database closes.
        if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      } finally {
        clearInterval(sweep);
        // Clears http.Server's connection-checking timer; the listener is already closed.
        server.close(() => undefined);
      }
    },
  };
}
