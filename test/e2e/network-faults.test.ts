/**
 * Network faults between the server and PostgreSQL, through a TCP proxy (test/support/tcp-proxy.ts): 20 ms
 * added each way, then a black hole (connections open, nothing answers), then healed. Placements are
 * retried by Idempotency-Key, as a client would, and checked at the end: one order per key, stock exact.
 * PostgreSQL only (the embedded database has no network): run with TEST_DATABASE_URL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { testDatabaseUrl } from '../support/database.js';
import { grpcClient } from '../support/grpc-client.js';
import { requires } from '../support/requires.js';
import { startTestServer } from '../support/server.js';
import { openTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const ADMIN_KEY = 'faults-admin-key-0123456789abcdef';
const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

describe.runIf(requires(testDatabaseUrl, 'network faults between the server and PostgreSQL', 'set TEST_DATABASE_URL'))(
  'the server behind a faulty network to PostgreSQL',
  () => {
    let proxy: TcpProxy;
    let server: RunningServer;
    let userId: number;
    const products: Array<{ id: number; sku: string }> = [];
    const placed = new Map<string, number>(); // Idempotency-Key → order id

    beforeAll(async () => {
      proxy = await openTcpProxy(testDatabaseUrl as string);
      server = await startTestServer({
        ADMIN_API_KEY: ADMIN_KEY,
        SEED_DEMO: 'false',
        DATABASE_URL: proxy.url,
        DATABASE_STATEMENT_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
      });
      const me = await checkedFetch(server.httpUrl, '/v1/users/me', { headers: auth });
      userId = (me.body as { id: number }).id;
      for (const sku of ['NET-A', 'NET-B', 'NET-C']) {
        const made = await checkedFetch(server.httpUrl, '/v1/products', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ name: sku, sku, price: 2, stock: 1000 }),
        });
        products.push(made.body as { id: number; sku: string });
      }
    });
    afterAll(async () => {
      proxy?.heal();
      await server?.close();
      await proxy?.cut();
    });

    const place = (key: string, lines: number) =>
      checkedFetch(server.httpUrl, '/v1/orders', {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': key },
        body: JSON.stringify({
          userId,
          items: products.slice(0, lines).map((product) => ({ productId: product.id, quantity: 1 })),
          shippingAddress: { zipCode: '1', line1: 'x' },
        }),
      });

    it('places orders with 20 ms added each way, only slower', async () => {
      proxy.fault({ kind: 'latency', ms: 20 });
      try {
        for (const [n, lines] of [1, 3, 1, 3].entries()) {
          const started = Date.now();
          const answer = await place(`slow-${n}`, lines);
          expect(answer.status, JSON.stringify(answer.body)).toBe(201);
          expect(Date.now() - started).toBeLessThan(2000);
          placed.set(`slow-${n}`, (answer.body as { id: number }).id);
        }
      } finally {
        proxy.heal();
      }
    });

    it('answers a documented 503 or 504 within its bound while PostgreSQL hangs, and places each once after', async () => {
      proxy.fault({ kind: 'hang' });
      const keys = ['hang-0', 'hang-1', 'hang-2'];
      try {
        const started = Date.now();
        const answers = await Promise.all([
          ...keys.map((key) => place(key, 2)),
          checkedFetch(server.httpUrl, '/v1/orders?size=5', { headers: auth }),
        ]);
        for (const answer of answers) {
          expect([503, 504], JSON.stringify(answer.body)).toContain(answer.status);
          expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
        }
        // The statement bound (1 s) and the pool's wait for a connection, not the black hole, end them.
        expect(Date.now() - started).toBeLessThan(7_000);
      } finally {
        proxy.heal();
      }
      // Retried by key, as a client would, until each has its one answer.
      for (const key of keys) {
        let answer = await place(key, 2);
        for (let tries = 0; tries < 40 && answer.status !== 201 && answer.status !== 200; tries++) {
          expect([409, 503, 504], JSON.stringify(answer.body)).toContain(answer.status);
          await sleep(500);
          answer = await place(key, 2);
        }
        expect([200, 201]).toContain(answer.status);
        placed.set(key, (answer.body as { id: number }).id);
      }
    });

    it('holds its invariants at quiet: one order per key, the stock reserved for exactly the orders', async () => {
      for (const [key, id] of placed) {
        const again = await place(key, key.startsWith('hang') ? 2 : Number(key.split('-')[1]) % 2 === 0 ? 1 : 3);
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect((again.body as { id: number }).id).toBe(id);
      }
      const page = await checkedFetch(server.httpUrl, '/v1/orders?size=100', { headers: auth });
      const orders = (page.body as { items: Array<{ id: number; items: Array<{ sku: string; quantity: number }> }> })
        .items;
      expect(orders.map((order) => order.id).sort()).toEqual([...placed.values()].sort());
      const inventory = grpcClient({ address: server.grpcUrl });
      try {
        for (const { sku } of products) {
          const held = orders.flatMap((order) => order.items).filter((item) => item.sku === sku);
          const { stock } = await inventory.reply<{ stock: { onHand: number; reserved: number } }>('GetStock', { sku });
          expect(stock).toMatchObject({ onHand: 1000, reserved: held.reduce((sum, item) => sum + item.quantity, 0) });
        }
      } finally {
        inventory.close();
      }
    });
  },
);
