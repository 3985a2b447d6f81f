import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender } from './http-sender.js';

/** What the receiver saw: each request with the local address its connection came to, and the connections. */
const seen: Array<{ address: string; host: string; connection: number }> = [];
const connections: Socket[] = [];
/** When set, a second request on one connection is cut off unanswered (a kept connection closing). */
let cutSecondRequest = false;
let receiver: Server;
let port: number;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const connection = connections.indexOf(request.socket);
    const onThisConnection = seen.filter((entry) => entry.connection === connection).length;
    seen.push({ address: request.socket.localAddress ?? '', host: request.headers.host ?? '', connection });
    request.resume();
    if (cutSecondRequest && onThisConnection === 1) return void request.socket.destroy();
    request.on('end', () => response.writeHead(204).end());
  });
  receiver.on('connection', (socket: Socket) => connections.push(socket));
  await new Promise<void>((resolve) => receiver.listen(0, '0.0.0.0', resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const message = (path: string) => ({
  url: `http://hooks.test:${port}${path}`,
  id: 'evt_1',
  secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  body: '{}',
});

describe('webhook sender', () => {
  it('keeps a connection per origin and checked address: a name that now resolves elsewhere gets a new one', async () => {
    seen.length = 0;
    let address = '127.0.0.1';
    const send = createWebhookSender({ allowPrivate: true, resolve: async () => [address], timeoutMs: 2000 });
    try {
      for (let n = 0; n < 3; n++) expect((await send(message('/a'))).status).toBe(204);
      address = '127.0.0.2'; // DNS changed between two attempts: the kept connection goes to the old address
      expect((await send(message('/a'))).status).toBe(204);
      expect(seen.map(({ address, host }) => [address, host])).toEqual([
        ['127.0.0.1', `hooks.test:${port}`],
        ['127.0.0.1', `hooks.test:${port}`],
        ['127.0.0.1', `hooks.test:${port}`],
        ['127.0.0.2', `hooks.test:${port}`],
      ]);
      const [first, , third, fourth] = seen.map((entry) => entry.connection);
      expect(third).toBe(first);
      expect(fourth).not.toBe(first);
    } finally {
      send.close();
    }
  });

  it('sends again, once, on a new connection when a kept one is closed as it is reused', async () => {
    seen.length = 0;
    cutSecondRequest = true;
    const send = createWebhookSender({ allowPrivate: true, resolve: async () => ['127.0.0.1'], timeoutMs: 2000 });
    try {
      expect(await send(message('/b'))).toMatchObject({ status: 204, error: null });
      expect(await send(message('/b'))).toMatchObject({ status: 204, error: null });
      const [first, cut, retried] = seen.map((entry) => entry.connection);
      expect(cut).toBe(first);
      expect(retried).not.toBe(first);
      expect(seen).toHaveLength(3);
    } finally {
      cutSecondRequest = false;
      send.close();
    }
  });
});
