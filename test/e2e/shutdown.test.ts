import { credentials, loadPackageDefinition, Metadata } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/database.js';
import { type LoadOutcome, loadRequest, prepareOrders } from '../support/load.js';
import { type SpawnedDatabase, type SpawnedServer, spawnedDatabase, spawnServer } from '../support/spawned-server.js';

const root = path.resolve(import.meta.dirname, '../..');
/** The forced exit of src/main.ts. */
const GRACE_MS = 10_000;

let server: SpawnedServer | undefined;
let database: SpawnedDatabase | undefined;
afterEach(async () => {
  await server?.cleanUp();
  await database?.drop();
});

function grpcStockClient(url: string) {
  const definition = protoLoader.loadSync(path.join(root, 'contracts/inventory/v1/inventory.proto'), {
    includeDirs: [path.join(root, 'contracts')],
  });
  const proto = loadPackageDefinition(definition) as any;
  const client = new proto.inventory.v1.Inventory(new URL(url).host, credentials.createInsecure());
  const getStock = (sku: string) =>
    new Promise<{ code: number; startedAt: number }>((resolve) => {
      const startedAt = Date.now();
      client.getStock({ sku }, new Metadata(), { deadline: Date.now() + 5000 }, (error: { code: number } | null) =>
        resolve({ code: error ? error.code : 0, startedAt }),
      );
    });
  return { getStock, close: () => client.close() };
}

describe(`SIGTERM under keep-alive load (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('stops accepting, answers every request in flight, closes kept-alive connections and exits 0 within the grace', async () => {
    database = await spawnedDatabase();
    server = await spawnServer(database);
    const { httpUrl, grpcUrl } = server;
    const target = await prepareOrders(httpUrl);
    const grpc = grpcStockClient(grpcUrl);

    const outcomes: LoadOutcome[] = [];
    const calls: Array<{ code: number; startedAt: number }> = [];
    let stop = false;
    // Eight kept-alive HTTP clients, half placing orders, and two gRPC callers, until the port refuses.
    const workers = [
      ...Array.from({ length: 8 }, async (_, index) => {
        while (!stop) {
          const outcome = await loadRequest(httpUrl, target, index % 2 === 0 ? 'order' : 'read');
          outcomes.push(outcome);
          if (outcome.error) return;
        }
      }),
      ...Array.from({ length: 2 }, async () => {
        while (!stop) {
          const call = await grpc.getStock(target.sku);
          calls.push(call);
          if (call.code !== 0) return;
        }
      }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const code = await Promise.race([
      server.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), GRACE_MS + 2000)),
    ]);
    const exitedAfterMs = Date.now() - signalledAt;
    stop = true;
    await Promise.all(workers);
    grpc.close();

    expect(code).toBe(0);
    expect(exitedAfterMs).toBeLessThan(GRACE_MS);
    const before = outcomes.filter((outcome) => outcome.startedAt < signalledAt);
    expect(before.filter((outcome) => outcome.kind === 'order' && outcome.status === 201).length).toBeGreaterThan(5);
    // Every request sent before the signal was answered, and with a success: the drain cut none of them.
    expect(before.filter((outcome) => outcome.error !== undefined)).toEqual([]);
    expect(before.filter((outcome) => (outcome.status ?? 0) >= 500)).toEqual([]);
    // After it, a request is answered or finds the port closed; never is a connection reset under it.
    const after = outcomes.filter((outcome) => outcome.startedAt >= signalledAt);
    expect(after.filter((outcome) => outcome.error !== undefined && outcome.error !== 'ECONNREFUSED')).toEqual([]);
    // The kept-alive connections were told to close: the answers given during the drain said so.
    expect(after.some((outcome) => outcome.connectionClose)).toBe(true);
    expect(calls.filter((call) => call.startedAt < signalledAt && call.code !== 0)).toEqual([]);
    expect(server.logs.join('\n')).not.toMatch(/drain took longer/);
  }, 40_000);
});
