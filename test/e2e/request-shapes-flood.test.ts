/**
 * One key floods the request-shape record with distinct GraphQL documents over HTTP (the rate budget
 * lifted): the record stays within its caps (the key's buffered entries per flush, its share of the
 * signature table), another key's shapes sent during the flood are still recorded, and every document is
 * accounted for: recorded or counted as dropped, in the table and in the metric (docs/decisions.md §13).
 * Each distinct document costs the server a parse, a validation and a compile (about 250 a second here),
 * so this flood is 2,000 documents against caps scaled down to match (`FLOOD_DOCUMENTS` for more); the
 * 100,000-document flood runs against the recorder and its SQL store in test/store/shape-record.test.ts.
 * It runs once, in the embedded database's run.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { RunningServer } from '../../src/main.js';
import { openDatabase } from '../../src/store/open.js';
import { serverDatabase, testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';
import { startFixtureServer } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'shape-flood-admin-key-0123456789';
const DOCUMENTS = Number(process.env.FLOOD_DOCUMENTS ?? 2_000);
const PER_KEY = 100;
const MAX_SIGNATURES = 350;
const SIGNATURES_PER_KEY = 300;
const FLUSH_EVERY = DOCUMENTS / 5;
const database = serverDatabase('shape-flood');
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
});

describe.runIf(requires(!testDatabaseUrl, 'the 100k-document shape flood', 'runs once, on the embedded database'))(
  'the request-shape record under a flood of distinct documents',
  () => {
    it('stays within its caps, still records another key, and counts what it dropped', async () => {
      server = await startFixtureServer({
        projectRoot: root,
        database,
        adminKey: ADMIN_KEY,
        env: {
          USAGE_FLUSH_MS: '600000',
          RATE_LIMIT_ENABLED: 'false',
          SHAPES_MAX_ENTRIES_PER_KEY: String(PER_KEY),
          SHAPES_MAX_SIGNATURES: String(MAX_SIGNATURES),
          SHAPES_MAX_SIGNATURES_PER_KEY: String(SIGNATURES_PER_KEY),
        },
      });
      const running = server;
      const admin: Caller = await running.core.apiKeys.authenticate(ADMIN_KEY);
      const keyOf = async (name: string) => {
        const user = (
          await running.core.users.create(admin, {
            name,
            email: `${name}@flood.example.com`,
            address: { zipCode: '04524', line1: '1 Road', line2: null },
          })
        ).result;
        return running.core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
      };
      const [flooder, quiet] = [await keyOf('flooder'), await keyOf('quiet')];
      const post = (secret: string, query: string) =>
        fetch(`${running.httpUrl}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'user-agent': 'flood/1.0' },
          body: JSON.stringify({ query }),
        }).then(async (response) => {
          expect(response.status).toBe(200);
          expect(await response.json()).not.toHaveProperty('errors');
        });

      let next = 0;
      const worker = async () => {
        while (next < DOCUMENTS) {
          const index = next++;
          // The operation name is kept in the signature: each document is a distinct shape.
          await post(flooder.secret, `query Flood${index} { products(first: 1) { nodes { id } } }`);
          if (index % FLUSH_EVERY === FLUSH_EVERY - 1) {
            // The other key, amid the flood; then a flush, as the timer would.
            await post(quiet.secret, `query Quiet${index} { products(first: 2) { nodes { id name } } }`);
            await running.flushUsage();
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const metrics = await (
        await fetch(`${running.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).text();
      await running.close();
      server = undefined;

      const settings = { dataDir: database.env.DATA_DIR as string, preparedStatements: 0 };
      const { db } = await openDatabase(settings);
      const count = async (sql: string, values: unknown[] = []) =>
        Number((await db.query<{ n: string }>(sql, values))[0]?.n ?? 0);
      const signatures = await count('SELECT count(*) AS n FROM request_shape_signatures');
      const flooded = await count(
        "SELECT coalesce(sum(count), 0) AS n FROM request_shapes WHERE api_key_id = $1 AND shape LIKE 'sig:%'",
        [flooder.apiKey.id],
      );
      const floodRows = await count(
        "SELECT count(*) AS n FROM request_shapes WHERE api_key_id = $1 AND shape LIKE 'sig:%'",
        [flooder.apiKey.id],
      );
      const quietRows = await count(
        "SELECT count(*) AS n FROM request_shapes WHERE api_key_id = $1 AND shape LIKE 'sig:%'",
        [quiet.apiKey.id],
      );
      const dropped = await count(
        "SELECT coalesce(sum(count), 0) AS n FROM request_shapes_dropped WHERE protocol = 'graphql'",
      );
      await db.close();

      expect(signatures).toBeLessThanOrEqual(MAX_SIGNATURES);
      // At most the key's cap per flush (five during the flood, one on shutdown) reached the table.
      expect(floodRows).toBeLessThanOrEqual(PER_KEY * (DOCUMENTS / FLUSH_EVERY + 1));
      expect(floodRows).toBeGreaterThan(0);
      expect(quietRows).toBe(DOCUMENTS / FLUSH_EVERY);
      // Every document is either recorded or counted as dropped.
      expect(flooded + dropped).toBe(DOCUMENTS);
      // The flooding key filled its share of the signature table, not the table.
      expect(floodRows).toBeLessThanOrEqual(SIGNATURES_PER_KEY);
      expect(dropped).toBeGreaterThanOrEqual(DOCUMENTS - SIGNATURES_PER_KEY);
      const metric = /request_shapes_dropped_total\{protocol="graphql"\} (\d+)/.exec(metrics)?.[1];
      expect(Number(metric)).toBeGreaterThan(0);
    }, 600_000);
  },
);
