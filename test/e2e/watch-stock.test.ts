/**
 * `inventory.v1.Inventory/WatchStock` on the real server, on both hosts of the internal port, read by an
 * independent @grpc/grpc-js client: the current stock first, then each committed change (made through
 * the rpcs, written to the outbox in their transactions), the same token check and metrics as unary
 * calls, and a clean end on deadline, cancellation and shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { contractClient } from '../support/client.js';
import { type GrpcClient, grpcClient } from '../support/grpc-client.js';
import { GRPC_HOSTS } from '../support/grpc-hosts.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'watch-test-admin-key-0123456789';
const TOKEN = 'watch-internal-token-0123456789';

interface StockChange {
  stock: { sku: string; onHand: number; reserved: number; available: number };
  initial: boolean;
  eventId: string;
  changedAt: { seconds: number } | null;
}

describe.each(GRPC_HOSTS)('WatchStock on the %s host', (host) => {
  let server: RunningServer;
  let client: GrpcClient;
  let closed = false;
  const skus = [`WATCH-A-${host}`, `WATCH-B-${host}`];

  beforeAll(async () => {
    server = await startTestServer({
      ADMIN_API_KEY: ADMIN_KEY,
      SEED_DEMO: 'false',
      INTERNAL_TOKEN: TOKEN,
      GRPC_SERVER: host,
    });
    client = grpcClient({ address: server.grpcUrl, token: TOKEN });
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    for (const [index, sku] of skus.entries()) {
      await admin.POST('/v1/products', { body: { name: `Watched ${index}`, sku, price: 10, stock: 10 + index } });
    }
  });
  afterAll(async () => {
    client?.close();
    if (!closed) await server?.close();
  });

  it('sends the current stock, then each change as it commits', async () => {
    const [sku] = skus as [string];
    // No deadline: a commit may be held back behind another file's transaction on a shared PostgreSQL
    // server, and a machine whose cores are kept busy once ran past 8 s before the first change. The
    // deadline's own end is the next test's.
    const watch = client.stream<StockChange>('WatchStock', { sku });
    const [initial] = await watch.next(1);
    expect(initial).toMatchObject({
      initial: true,
      eventId: '',
      changedAt: null,
      stock: { sku, onHand: 10, reserved: 0 },
    });

    await client.reply('AdjustStock', { sku, delta: 5, reason: 'goods received' });
    await client.reply('Reserve', { orderId: '9100', sku, quantity: 2 });
    await client.reply('AdjustStock', { sku: skus[1], delta: 1 }); // another SKU: not on this stream
    const [, received, reserved] = await watch.next(3);
    expect(received).toMatchObject({ initial: false, stock: { onHand: 15, reserved: 0, available: 15 } });
    expect(received?.eventId).toMatch(/^evt_/);
    expect(Math.abs((received?.changedAt?.seconds ?? 0) * 1000 - Date.now())).toBeLessThan(5000);
    expect(reserved).toMatchObject({ initial: false, stock: { onHand: 15, reserved: 2, available: 13 } });
    watch.cancel();
    expect((await watch.ended).code).toBe(1); // CANCELLED
    expect(watch.messages).toHaveLength(3);
  });

  it('stops at the deadline', async () => {
    const watch = client.stream<StockChange>('WatchStock', { sku: skus[0] }, { deadlineMs: 1000 });
    const [initial] = await watch.next(1);
    expect(initial).toMatchObject({ initial: true, stock: { sku: skus[0] } });
    const status = await watch.ended;
    expect(status.code).toBe(4); // DEADLINE_EXCEEDED
    expect(watch.messages).toHaveLength(1);
  });

  it('watches every SKU when none is named, and refuses what a unary call would refuse', async () => {
    const watch = client.stream<StockChange>('WatchStock', { sku: '' });
    const initial = await watch.next(skus.length);
    expect(initial.map((change) => change.stock.sku)).toEqual(skus);
    await client.reply('AdjustStock', { sku: skus[1], delta: -1 });
    const [, , change] = await watch.next(skus.length + 1);
    expect(change).toMatchObject({ initial: false, stock: { sku: skus[1] } });
    watch.cancel();
    expect((await watch.ended).code).toBe(1); // CANCELLED

    const anonymous = grpcClient({ address: server.grpcUrl }).stream('WatchStock', { sku: skus[0] });
    expect((await anonymous.ended).code).toBe(16); // UNAUTHENTICATED
    const unknown = client.stream('WatchStock', { sku: 'NO-SUCH-SKU' });
    expect((await unknown.ended).code).toBe(5); // NOT_FOUND
  });

  it('is counted like a unary call, by how it ended', async () => {
    const response = await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const text = await response.text();
    const count = (code: string) =>
      Number(
        text.match(
          new RegExp(
            `grpc_server_handled_total\\{[^}]*grpc_method="WatchStock"[^}]*grpc_code="${code}"[^}]*\\} (\\d+)`,
          ),
        )?.[1] ?? 0,
      );
    expect({
      deadline: count('DEADLINE_EXCEEDED'),
      cancelled: count('CANCELED'),
      refused: count('UNAUTHENTICATED'),
    }).toEqual({ deadline: 1, cancelled: 2, refused: 1 });
  });

  it('delivers to a caller named by x-api-key only while its key holds: revoked, the stream ends UNAUTHENTICATED', async () => {
    const [sku] = skus as [string];
    const admin = contractClient(server.httpUrl, ADMIN_KEY);
    const user = await admin.POST('/v1/users', {
      body: { name: 'Stock sync', email: `watch-key-${host}@example.com`, address: { zipCode: '1', line1: 'Main St' } },
    });
    const issued = await admin.POST('/v1/api-keys', { body: { userId: user.data?.id as number, role: 'customer' } });
    const { id, key } = issued.data as { id: number; key: string };
    const watch = client.stream<StockChange>('WatchStock', { sku }, { headers: { 'x-api-key': key } });
    await watch.next(1);
    await client.reply('AdjustStock', { sku, delta: 1 });
    await watch.next(2);

    const revokedAt = Date.now();
    const revoked = await admin.DELETE('/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId: id } } });
    expect(revoked.response.status).toBe(204);
    const ended = await watch.ended;
    expect({ code: ended.code, details: ended.details }).toMatchObject({
      code: 16, // UNAUTHENTICATED
      details: expect.stringMatching(
        /^The API key of this stream expired or was revoked or rotated out. The stream ends/,
      ),
    });
    // Within the re-check's second, not at the next change or never.
    expect(Date.now() - revokedAt).toBeLessThan(2500);
    await client.reply('AdjustStock', { sku, delta: 1 });
    expect(watch.messages).toHaveLength(2);
    // The key is refused when a watch opens with it, too.
    const reopened = client.stream('WatchStock', { sku }, { headers: { 'x-api-key': key } });
    expect((await reopened.ended).code).toBe(16);
  });

  it('ends open streams with OK when the server drains, without holding the shutdown', async () => {
    const watch = client.stream<StockChange>('WatchStock', { sku: skus[0] });
    await watch.next(1);
    const started = Date.now();
    closed = true;
    const closing = server.close();
    expect((await watch.ended).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(500);
    await closing;
  });
});
