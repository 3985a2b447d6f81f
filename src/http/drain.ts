import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';

/**
 * How long a connection must have been idle before the drain closes it. A connection that became idle a
 * moment ago may already carry the client's next request, not yet read: closing it would reset that one.
 */
const IDLE_GRACE_MS = 500;

/** Graceful shutdown of the public HTTP/1.1 server. */
export interface HttpDrain {
  /** Counts requests in flight and, once draining, answers each with `Connection: close`. */
  middleware: MiddlewareHandler;
  /** Follows the server's connections (call once, right after it listens). */
  watch(server: Server): void;
  /**
   * Stops accepting connections, lets every request in flight finish, closes each kept-alive connection
   * after its current answer, and resolves when no connection and no handler is left.
   */
  drain(server: Server): Promise<void>;
}

/**
 * Creates the drain. `server.close()` alone is not enough under keep-alive load: a connection that always
 * has a request in flight never becomes idle, so it would keep being served until the forced exit; and
 * it drops idle connections at once, racing a request the client is sending on one right now. Instead
 * every answer given once the drain has begun carries `Connection: close`, so each connection ends after
 * the request it is serving, and only connections idle for IDLE_GRACE_MS are closed by the server.
 */
export function createHttpDrain(): HttpDrain {
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  /** Each open connection: since when it has been idle, or undefined while it serves a request. */
  const idleSince = new Map<Socket, number | undefined>();
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
    watch(server) {
      server.on('connection', (socket: Socket) => {
        idleSince.set(socket, Date.now());
        socket.once('close', () => idleSince.delete(socket));
      });
      server.on('request', (request, response) => {
        const socket = request.socket;
        idleSince.set(socket, undefined);
        response.once('close', () => {
          if (idleSince.has(socket)) idleSince.set(socket, Date.now());
        });
      });
    },
    async drain(server) {
      draining = true;
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const sweep = setInterval(() => {
        // Timers run before the event loop reads its sockets: a request that arrived while the loop was busy
        // is still unread here. The check phase comes after that read, so a connection whose request has
        // just been parsed is no longer idle there and keeps its answer.
        setImmediate(() => {
          const now = Date.now();
          for (const [socket, since] of idleSince) {
            if (since !== undefined && now - since >= IDLE_GRACE_MS) socket.destroy();
          }
        });
      }, IDLE_GRACE_MS / 5);
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
