import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';
import { contractClient } from '../support/client.js';
import { dropSchema, runOnTestServer, testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';

// Spec §1 rule 2: any instance answers any request. Two servers over one PostgreSQL database (PGlite is
// one process per directory, so this runs with TEST_DATABASE_URL, as CI does).
const ADMIN_KEY = 'instances-admin-key-0123456789';
const schema = `test_${randomBytes(6).toString('hex')}`;
const servers: RunningServer[] = [];

afterAll(async () => {
  for (const server of servers) await server.close();
  await dropSchema(schema);
});

describe.runIf(requires(testDatabaseUrl, 'two server instances over one database', 'set TEST_DATABASE_URL'))(
  'several instances over one database',
  () => {
    beforeAll(async () => {
      for (let index = 0; index < 2; index++) {
        const config = loadConfig({
          PORT: '0',
          HOST: '127.0.0.1',
          GRPC_PORT: '0',
          DATABASE_URL: testDatabaseUrl as string,
          DATABASE_SCHEMA: schema,
          ADMIN_API_KEY: ADMIN_KEY,
          LOG_LEVEL: 'silent',
        });
        servers.push(await startServer(config, pino({ level: 'silent' })));
      }
    });

    it('continue each other’s pages and replay each other’s idempotent creates', async () => {
      const [first, second] = servers.map((server) => contractClient(server.httpUrl, ADMIN_KEY)) as [
        ReturnType<typeof contractClient>,
        ReturnType<typeof contractClient>,
      ];
      const me = await first.GET('/v1/users/me');
      const product = await first.POST('/v1/products', {
        body: { name: 'Shared', sku: 'SHARED-1', price: 5, stock: 100 },
      });
      const body = {
        userId: me.data?.id as number,
        items: [{ productId: product.data?.id as number, quantity: 1 }],
        shippingAddress: { zipCode: '1', line1: 'One Road' },
      };
      for (let index = 0; index < 3; index++) await first.POST('/v1/orders', { body });

      const page = await first.GET('/v1/orders', { params: { query: { size: 2 } } });
      const next = await second.GET('/v1/orders', {
        params: { query: { size: 2, cursor: page.data?.nextCursor as string } },
      });
      expect(next.response.status).toBe(200);
      expect(next.data?.items).toHaveLength(1);

      const headers = { 'Idempotency-Key': 'across-instances' };
      const created = await first.POST('/v1/orders', { body, params: { header: headers } });
      const replayed = await second.POST('/v1/orders', { body, params: { header: headers } });
      expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.data?.id).toBe(created.data?.id);
    });

    it('keep answering reads they prepared after another instance adds a column to the table (a rolling deploy)', async () => {
      const client = contractClient((servers[0] as RunningServer).httpUrl, ADMIN_KEY);
      const me = await client.GET('/v1/users/me');
      const product = await client.POST('/v1/products', {
        body: { name: 'Rolling', sku: 'ROLLING-1', price: 5, stock: 9 },
      });
      const order = await client.POST('/v1/orders', {
        body: {
          userId: me.data?.id as number,
          items: [{ productId: product.data?.id as number, quantity: 1 }],
          shippingAddress: { zipCode: '1', line1: 'One Road' },
        },
      });
      const id = order.data?.id as number;
      expect(order.response.status).toBe(201);
      // Every pooled connection of the first instance prepares the statements of these reads.
      await Promise.all(
        Array.from({ length: 20 }, () => client.GET('/v1/orders/{orderId}', { params: { path: { orderId: id } } })),
      );
      // Another instance's migration.
      await runOnTestServer('ALTER TABLE orders ADD COLUMN rollout_note text', schema);
      try {
        for (let index = 0; index < 20; index++) {
          const read = await client.GET('/v1/orders/{orderId}', { params: { path: { orderId: id } } });
          expect(read.response.status).toBe(200);
          expect(read.data?.id).toBe(id);
        }
        expect((await client.GET('/v1/orders', { params: { query: { size: 1 } } })).data?.items[0]?.id).toBe(id);
      } finally {
        await runOnTestServer('ALTER TABLE orders DROP COLUMN rollout_note', schema);
      }
    });
  },
);
