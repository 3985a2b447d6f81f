import net from 'node:net';

/**
 * What the network between the proxy's two sides does: passes bytes, adds latency each way, hangs (holds
 * every byte, both ways, connections open: a black hole), is half-open (the server's answers are held, the
 * client's bytes pass), or trickles (a few bytes at a time). Held bytes flow again once it heals, as TCP
 * would retransmit them.
 */
export type NetworkFault =
  | { kind: 'none' }
  | { kind: 'latency'; ms: number }
  | { kind: 'hang' }
  | { kind: 'half-open' }
  | { kind: 'trickle'; bytes: number; everyMs: number };

/** A TCP proxy to a server (PostgreSQL, Redis) that a test can cut, slow down or hang, and restore. */
export interface TcpProxy {
  /** The target's URL with the proxy's address. */
  url: string;
  /** Stops accepting and drops every open connection. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  /** Drops every open connection (a reset), still accepting new ones. */
  reset(): void;
  /** From now on the network behaves as `fault` says, for open and new connections. */
  fault(fault: NetworkFault): void;
  /** Ends any fault: held bytes flow on, in order. */
  heal(): void;
  /** Bytes forwarded so far, each way. */
  bytes(): { up: number; down: number };
}

/** One direction of one connection: its bytes leave in order, each when the fault lets it. */
function direction(to: net.Socket, fault: () => NetworkFault, up: boolean, count: (bytes: number) => void) {
  const held: Buffer[] = [];
  // Bytes on their way under latency, in the order they came, each with the time it is due; one timer for
  // the first. (A timer per chunk let two due at the same millisecond leave in either order when latency
  // ended, which broke a PostgreSQL connection's stream after a heal: the chaos run's recovery tail.)
  const timed: Array<{ due: number; chunk: Buffer }> = [];
  let timer: NodeJS.Timeout | undefined;
  let trickling = false;
  const write = (chunk: Buffer) => {
    if (!to.destroyed) to.write(chunk);
    count(chunk.length);
  };
  const pump = () => {
    timer = undefined;
    for (let first = timed[0]; first && first.due <= Date.now(); first = timed[0]) {
      timed.shift();
      write(first.chunk);
    }
    const next = timed[0];
    if (next) timer = setTimeout(pump, next.due - Date.now()).unref();
  };
  const drip = () => {
    const now = fault();
    const first = held[0];
    if (!first || now.kind !== 'trickle') {
      trickling = false;
      return;
    }
    trickling = true;
    write(first.subarray(0, now.bytes));
    if (first.length > now.bytes) held[0] = first.subarray(now.bytes);
    else held.shift();
    setTimeout(drip, now.everyMs).unref();
  };
  return {
    push(chunk: Buffer) {
      const now = fault();
      const holding = now.kind === 'hang' || (now.kind === 'half-open' && !up);
      if (holding || held.length > 0) {
        held.push(chunk);
        if (now.kind === 'trickle' && !trickling) drip();
        return;
      }
      if (now.kind === 'trickle') {
        held.push(chunk);
        drip();
        return;
      }
      // Never before a byte still on its way under an earlier latency: a stream keeps its order.
      const due = Math.max(timed.at(-1)?.due ?? 0, Date.now() + (now.kind === 'latency' ? now.ms : 0));
      if (timed.length === 0 && due <= Date.now()) return write(chunk);
      timed.push({ due, chunk });
      if (!timer) pump();
    },
    /** Lets what was held go, in order (under latency or trickle, as they say). */
    release() {
      const now = fault();
      if (now.kind === 'trickle') {
        if (!trickling) drip();
        return;
      }
      const waiting = held.splice(0);
      for (const chunk of waiting) this.push(chunk);
    },
  };
}

/** Opens a proxy on a free loopback port to the host and port of `targetUrl`. */
export async function openTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const defaultPort = target.protocol.startsWith('postgres') ? 5432 : 6379;
  const sockets = new Set<net.Socket>();
  const directions = new Set<ReturnType<typeof direction>>();
  let current: NetworkFault = { kind: 'none' };
  const counted = { up: 0, down: 0 };
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
    const toServer = direction(
      upstream,
      () => current,
      true,
      (n) => (counted.up += n),
    );
    const toClient = direction(
      client,
      () => current,
      false,
      (n) => (counted.down += n),
    );
    directions.add(toServer);
    directions.add(toClient);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        directions.delete(toServer);
        directions.delete(toClient);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => toServer.push(chunk));
    upstream.on('data', (chunk: Buffer) => toClient.push(chunk));
  });
  const listen = (port: number) => new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = proxy.address() as net.AddressInfo;
  const url = new URL(targetUrl);
  url.host = `127.0.0.1:${port}`;
  const reset = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: url.toString(),
    cut: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        reset();
      }),
    restore: () => listen(port),
    reset,
    fault(fault) {
      current = fault;
      for (const each of directions) each.release();
    },
    heal() {
      current = { kind: 'none' };
      for (const each of directions) each.release();
    },
    bytes: () => ({ ...counted }),
  };
}
