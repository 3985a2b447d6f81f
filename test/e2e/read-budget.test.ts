/**
 * Every read bounded: on PostgreSQL a statement that would run past `DATABASE_STATEMENT_TIMEOUT_MS`
 * is answered `503 DATABASE_UNAVAILABLE` with `Retry-After` within that budget plus 100 ms, and the pool
 * stays available to writes meanwhile. The read is made to run long by a lock another session holds on the
 * table it reads (a lock wait counts towards `statement_timeout`, as a long plan does). PostgreSQL only: the
 * embedded database runs in the server's thread, where `statement_timeout` does not fire
 * (docs/operating.md).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'read-budget-admin-key-0123456789abcdef';
const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const BUDGET_MS = 400;

describe.runIf(requires(testDatabaseUrl, 'the read budget on PostgreSQL', 'set TEST_DATABASE_URL'))(
  'a read past its budget',
  () => {
    const schema = `read_budget_${randomBytes(4).toString('hex')}`;
    let server: RunningServer;
    let locker: pg.Client;

    beforeAll(async () => {
      server = await startTestServer({
        ADMIN_API_KEY: ADMIN_KEY,
        SEED_DEMO: 'false',
        DATABASE_SCHEMA: schema,
        DATABASE_STATEMENT_TIMEOUT_MS: String(BUDGET_MS),
      });
      locker = new pg.Client({ connectionString: testDatabaseUrl });
      await locker.connect();
    });
    afterAll(async () => {
      await locker?.query('ROLLBACK').catch(() => undefined);
      await locker?.end();
      await server?.close();
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });

    it('answers 503 with Retry-After within the budget plus 100 ms, while writes go on', async () => {
      // The key is verified (and cached) before the lock is taken: the read alone meets it.
      expect((await checkedFetch(server.httpUrl, '/v1/orders', { headers: auth })).status).toBe(200);
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${schema}.orders IN ACCESS EXCLUSIVE MODE`);

      const started = Date.now();
      const reading = checkedFetch(server.httpUrl, '/v1/orders?withTotal=true', { headers: auth });
      // A write that touches no locked table is served while the read waits.
      const write = await checkedFetch(server.httpUrl, '/v1/products', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          name: 'Budget Kettle',
          sku: `RB-${randomBytes(3).toString('hex')}`,
          price: 5,
          stock: 1,
        }),
      });
      const wroteAfterMs = Date.now() - started;
      const read = await reading;
      const answeredAfterMs = Date.now() - started;

      expect(write.status).toBe(201);
      expect(wroteAfterMs).toBeLessThan(BUDGET_MS);
      expect(read.status).toBe(503);
      expect(read.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
      expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answeredAfterMs).toBeGreaterThanOrEqual(BUDGET_MS - 20);
      expect(answeredAfterMs).toBeLessThan(BUDGET_MS + 100);

      await locker.query('ROLLBACK');
      expect((await checkedFetch(server.httpUrl, '/v1/orders', { headers: auth })).status).toBe(200);
    });
  },
);
