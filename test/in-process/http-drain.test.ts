import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpDrain } from '../../src/http/drain.js';

let server: Server | undefined;
let client: Socket | undefined;
afterEach(async () => {
  client?.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** Everything the server sends on `socket` until it closes it: what a raw HTTP/1.1 client reads. */
function received(socket: Socket) {
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  return {
    text: () => text,
    closed: new Promise<string>((resolve) => {
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      socket.on('close', () => resolve('closed'));
    }),
  };
}

const request = (n: number) => `GET /${n} HTTP/1.1\r\nHost: drain.test\r\n\r\n`;

describe('HTTP drain', () => {
  it('answers a request that reached an idle kept-alive connection while the event loop was busy', async () => {
    const drain = createHttpDrain();
    server = createServer((incoming, response) => response.end(`answer ${incoming.url}`));
    drain.watch(server);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };

    client = connect(port, '127.0.0.1');
    const reading = received(client);
    client.write(request(1));
    while (!reading.text().includes('answer /1')) await new Promise((resolve) => setTimeout(resolve, 10));
    // The connection has been idle past the drain's grace when the drain begins.
    await new Promise((resolve) => setTimeout(resolve, 700));

    const drained = drain.drain(server);
    // The next request arrives while the loop is busy in one of its late phases (a CPU-bound handler, a
    // long GC pause). When the loop comes round, its timers run first: the drain's sweep is due, and the
    // request sits unread in the server's receive buffer until the loop polls its sockets after them.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        client?.write(request(2));
        const busyUntil = Date.now() + 300;
        while (Date.now() < busyUntil) {
          // busy
        }
        resolve();
      }),
    );

    expect(await reading.closed).toBe('closed');
    expect(reading.text()).toContain('answer /2');
    await drained;
  });
});
