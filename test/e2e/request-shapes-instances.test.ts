/**
 * The request-shape record over two instances on one PostgreSQL database, through a rolling restart
 * (docs/decisions.md §13): each instance is stopped as SIGTERM stops it (its last flush), started again, and
 * keeps serving beside the other. Every request of every caller is in the record once: the flushes of
 * several instances add up to one record, and a stop loses nothing.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { RunningServer } from '../../src/main.js';
import { openDatabase } from '../../src/store/open.js';
import { serverDatabase, testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';
import { instancesOf } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'shape-instances-admin-key-0123456789';
const database = serverDatabase('shape-instances');
const instances = instancesOf({ projectRoot: root, database, adminKey: ADMIN_KEY, env: { USAGE_FLUSH_MS: '600000' } });

afterAll(async () => {
  await instances.stopAll();
  await database.remove();
});

/** An instance over the shared database; flushes only when it stops (or a test asks). */
const instance = instances.start;
const stop = instances.stop;

describe.runIf(requires(testDatabaseUrl, 'the shape record over two instances', 'set TEST_DATABASE_URL'))(
  'the request-shape record through a rolling restart of two instances',
  () => {
    it('keeps every request of every caller, once', async () => {
      let [a, b] = [await instance(), await instance()];
      const admin: Caller = await a.core.apiKeys.authenticate(ADMIN_KEY);
      const user = (
        await a.core.users.create(admin, {
          name: 'Roller',
          email: 'roller@instances.example.com',
          address: { zipCode: '04524', line1: '1 Road', line2: null },
        })
      ).result;
      const key = await a.core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
      const send = async (server: RunningServer, times: number) => {
        for (let index = 0; index < times; index++) {
          const response = await fetch(`${server.httpUrl}/v1/orders?status=PAID`, {
            headers: { authorization: `Bearer ${key.secret}`, 'user-agent': 'roller/1.0' },
          });
          expect(response.status).toBe(200);
        }
      };
      await send(a, 3);
      await send(b, 4);
      // A restarts while B serves; then B restarts while the new A serves.
      await stop(a);
      a = await instance();
      await send(a, 2);
      await send(b, 1);
      await stop(b);
      b = await instance();
      await send(b, 5);
      await send(a, 1);
      await stop(a);
      await stop(b);

      const { DATABASE_URL: url, DATABASE_SCHEMA: schema } = database.env;
      const { db } = await openDatabase({ url, schema, dataDir: '', preparedStatements: 0 });
      const rows = await db.query<{ shape: string; total: string }>(
        `SELECT shape, sum(count) AS total FROM request_shapes WHERE api_key_id = $1 GROUP BY shape ORDER BY shape`,
        [key.apiKey.id],
      );
      const recorders = await db.query<{ n: string }>(
        'SELECT count(DISTINCT instance) AS n FROM request_shape_recorders',
      );
      await db.close();
      const totals = Object.fromEntries(rows.map((row) => [row.shape, Number(row.total)]));
      expect(totals['GET /v1/orders']).toBe(16);
      expect(totals['GET /v1/orders query:status']).toBe(16);
      expect(totals['OrderStatusFilterValue=PAID']).toBe(16);
      expect(Number(recorders[0]?.n)).toBe(4);
    }, 120_000);
  },
);
