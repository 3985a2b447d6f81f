import { afterEach, describe, expect, it } from 'vitest';
import { checkedFetch } from '../support/contract.js';
import { type ServerDatabase, serverDatabase, testDatabaseUrl } from '../support/database.js';
import { type CallOutcome, grpcClient } from '../support/grpc-client.js';
import { GRPC_HOSTS } from '../support/grpc-hosts.js';
import { type LoadOutcome, loadRequest, prepareOrders } from '../support/load.js';
import { type SpawnedServer, spawnServer } from '../support/spawned-server.js';

/** The forced exit of src/main.ts. */
const GRACE_MS = 10_000;

let server: SpawnedServer | undefined;
let database: ServerDatabase | undefined;
afterEach(async () => {
  await server?.cleanUp();
  await database?.remove();
});

// The gRPC callers drain on both hosts of the internal port (GRPC_SERVER).
describe.each(GRPC_HOSTS)(
  `SIGTERM under keep-alive load (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'}, %s gRPC host)`,
  (host) => {
    it('stops accepting, answers every request in flight, closes kept-alive connections and exits 0 within the grace', async () => {
      database = serverDatabase('order-api');
      server = await spawnServer(database, { GRPC_SERVER: host });
      const { httpUrl, grpcUrl } = server;
      const target = await prepareOrders(httpUrl);
      const grpc = grpcClient({ address: grpcUrl });

      const outcomes: LoadOutcome[] = [];
      const calls: CallOutcome[] = [];
      let stop = false;
      const connected = new Set<number>();
      // Eight kept-alive HTTP clients, half placing orders, and two gRPC callers, until the port refuses.
      const workers = [
        ...Array.from({ length: 8 }, async (_, index) => {
          while (!stop) {
            const outcome = await loadRequest(httpUrl, target, index % 2 === 0 ? 'order' : 'read');
            outcomes.push(outcome);
            connected.add(index);
            if (outcome.error) return;
          }
        }),
        ...Array.from({ length: 2 }, async () => {
          while (!stop) {
            const call = await grpc.call('getStock', { sku: target.sku });
            calls.push(call);
            if (call.code !== 0) return;
          }
        }),
      ];
      // Signal once every client holds an accepted, kept-alive connection: a connection still waiting in the
      // kernel's accept queue when the listener closes is reset by the kernel, before the server ever saw it.
      while (connected.size < 8) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await Promise.race([
        server.exited,
        new Promise((resolve) => setTimeout(() => resolve('still running'), GRACE_MS + 2000)),
      ]);
      const exitedAfterMs = Date.now() - signalledAt;
      stop = true;
      if (code === 'still running') server.child.kill('SIGKILL');
      await Promise.all(workers);
      grpc.close();

      expect(code, server.logs.slice(-5).join('\n')).toBe(0);
      expect(exitedAfterMs).toBeLessThan(GRACE_MS);
      // "Before" is when fetch wrote the request to a connection the server had accepted (one that had
      // carried an answer), not when the caller asked: on a busy machine that can be a moment later.
      const before = outcomes.filter(
        (outcome) => outcome.sentAt !== undefined && outcome.sentAt < signalledAt && outcome.sentOnReusedConnection,
      );
      expect(before.filter((outcome) => outcome.kind === 'order' && outcome.status === 201).length).toBeGreaterThan(0);
      // Every request sent before the signal was answered, and with a success: the drain cut none of them.
      expect(before.filter((outcome) => outcome.error !== undefined)).toEqual([]);
      expect(before.filter((outcome) => (outcome.status ?? 0) >= 500)).toEqual([]);
      // After it, a request is answered or finds the port closed. A new connection that raced the closing
      // listener (queued in the kernel, never accepted, nothing read) is reset by the kernel instead, and a
      // request written on a kept-alive connection in the instant the drain closed it idle finds it closed
      // (UND_ERR_SOCKET: the race RFC 9112 §9.3.1 has clients retry; an order carries its Idempotency-Key).
      const after = outcomes.filter((outcome) => !before.includes(outcome));
      const closedUnderIt = ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'];
      expect(after.filter((outcome) => outcome.error !== undefined && !closedUnderIt.includes(outcome.error))).toEqual(
        [],
      );
      // The kept-alive connections were told to close: the answers given during the drain said so.
      expect(
        after.some((outcome) => outcome.connectionClose),
        JSON.stringify(after),
      ).toBe(true);
      expect(calls.filter((call) => call.startedAt < signalledAt && call.code !== 0)).toEqual([]);
      expect(server.logs.join('\n')).not.toMatch(/drain took longer/);
    }, 90_000);
  },
);

describe('SIGTERM with SHUTDOWN_DELAY_MS (a balancer that only health-checks)', () => {
  it('answers readiness 503 naming `serving` at once, goes on serving for the delay, then exits 0', async () => {
    database = serverDatabase('order-api');
    server = await spawnServer(database, { SHUTDOWN_DELAY_MS: '3000' });
    const { httpUrl } = server;
    const ready = await checkedFetch(httpUrl, '/health/ready');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ok', checks: { database: 'ok', serving: 'ok' } }]);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = await checkedFetch(httpUrl, '/health/ready');
    const products = await checkedFetch(httpUrl, '/v1/products');
    const answeredAfterMs = Date.now() - signalledAt;
    expect([stopping.status, stopping.body]).toEqual([
      503,
      { status: 'unavailable', checks: { database: 'ok', serving: 'failing' } },
    ]);
    // Still serving: the balancer's next checks take it out of rotation before the drain refuses anything.
    expect(products.status).toBe(200);
    expect(answeredAfterMs).toBeLessThan(3000);
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(3000);
  }, 60_000);
});
