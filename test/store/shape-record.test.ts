/**
 * The request-shape record's recorder over its SQL store (docs/decisions.md §13), on the embedded database
 * and, with TEST_DATABASE_URL, on PostgreSQL: two instances' flushes add up to one record; the buffer keeps
 * its caps per key and in total and counts what it drops per protocol and day; the signature table keeps
 * its caps per key and in total; coverage tells measured days; retention purges old days and the
 * signatures no row names.
 */

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShapeRecorder } from '../../src/core/lifecycle/shapes/shape-recorder.js';
import { operationSignature } from '../../src/graphql/operation-signature.js';
import { shapeStore } from '../../src/store/shape-store.js';
import { openTestDatabase, type TestDatabase, testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

const at = (time: string) => () => new Date(time);
const signatureOf = (hash: string) => ({ hash, signature: `query ${hash}{products{id}}` });

describe('the request-shape record', () => {
  it('adds up the flushes of two instances into one record, with coverage', async () => {
    const port = shapeStore(database.db);
    const now = at('2026-11-20T10:00:00Z');
    const [one, two] = ['one', 'two'].map((instance) => createShapeRecorder({ port, instance, flushMs: 600_000, now }));
    for (const recorder of [one, two]) {
      await recorder?.register();
      recorder?.record('rest', { apiKeyId: 7, client: 'shop/1.0' }, ['GET /v1/orders', 'GET /v1/orders query:q']);
      recorder?.record('rest', { apiKeyId: null, client: 'curl/8.0' }, ['GET /v1/orders']);
    }
    await Promise.all([one?.close(), two?.close()]);
    const rows = await port.uses({ sinceDay: '2026-11-20', shapes: ['GET /v1/orders'] });
    expect(rows.map(({ apiKeyId, client, count }) => ({ apiKeyId, client, count }))).toEqual([
      { apiKeyId: 0, client: 'curl/8.0', count: 2 },
      { apiKeyId: 7, client: 'shop/1.0', count: 2 },
    ]);
    expect(await port.coverage('2026-11-20')).toEqual([{ day: '2026-11-20', served: 2, flushed: 2, dropped: {} }]);
  });

  it('keeps its caps per key and in total, and counts what it dropped per protocol', async () => {
    const port = shapeStore(database.db);
    const dropped: Record<string, number> = {};
    const recorder = createShapeRecorder({
      port,
      instance: 'capped',
      flushMs: 600_000,
      maxEntries: 30,
      maxEntriesPerKey: 10,
      now: at('2026-11-21T10:00:00Z'),
      onDropped: (protocol, count) => {
        dropped[protocol] = (dropped[protocol] ?? 0) + count;
      },
    });
    for (let index = 0; index < 100; index++)
      recorder.record('graphql', { apiKeyId: 1, client: 'flood/1.0' }, [`sig:f${index}`], signatureOf(`f${index}`));
    // Another key still fits: the flood met its own cap, not the total.
    recorder.record('grpc', { apiKeyId: 2, client: 'quiet/1.0' }, ['inventory.v1.Inventory/GetStock']);
    expect(recorder.size.entries).toBe(11);
    expect(dropped).toEqual({ graphql: 90 });
    for (let key = 3; key < 10; key++)
      for (let index = 0; index < 10; index++)
        recorder.record('rest', { apiKeyId: key, client: 'many/1.0' }, [`GET /v1/x${index}`]);
    expect(recorder.size.entries).toBe(30);
    expect(dropped).toEqual({ graphql: 90, rest: 51 });
    await recorder.close();
    const [day] = await port.coverage('2026-11-21');
    expect(day?.dropped).toEqual({ graphql: 90, rest: 51 });
    expect(await port.uses({ sinceDay: '2026-11-21', protocol: 'grpc' })).toHaveLength(1);
  });

  it('keeps the signature table within its caps per key and in total, dropping the uses it refused', async () => {
    const port = shapeStore(database.db);
    // The table is shared with the tests above: room for 8 more.
    const [{ held }] = (await database.db.query<{ held: number }>(
      'SELECT count(*)::int AS held FROM request_shape_signatures',
    )) as [{ held: number }];
    const recorder = createShapeRecorder({
      port,
      instance: 'signatures',
      flushMs: 600_000,
      maxSignatures: Number(held) + 8,
      maxSignaturesPerKey: 5,
      now: at('2026-11-22T10:00:00Z'),
    });
    for (const key of [11, 12])
      for (let index = 0; index < 6; index++)
        recorder.record(
          'graphql',
          { apiKeyId: key, client: 'c/1' },
          [`sig:k${key}s${index}`],
          signatureOf(`k${key}s${index}`),
        );
    await recorder.close();
    const stored = await database.db.query<{ api_key_id: string }>(
      "SELECT api_key_id FROM request_shape_signatures WHERE hash LIKE 'k1%'",
    );
    expect(stored.filter((row) => Number(row.api_key_id) === 11)).toHaveLength(5);
    expect(stored.filter((row) => Number(row.api_key_id) === 12)).toHaveLength(3);
    const rows = await port.uses({ sinceDay: '2026-11-22', protocol: 'graphql', prefix: 'sig:k1' });
    expect(rows).toHaveLength(8);
    expect(recorder.dropped).toBe(4);
    const [day] = await port.coverage('2026-11-22');
    expect(day?.dropped).toEqual({ graphql: 4 });
  });

  // Long (about 10 s): once, in the embedded database's run.
  it.runIf(
    requires(!testDatabaseUrl, 'the 100k-document flood of the recorder', 'runs once, on the embedded database'),
  )(
    'takes a flood of 100,000 distinct documents from one key within its caps, still recording another',
    async () => {
      const port = shapeStore(database.db);
      let dropped = 0;
      const recorder = createShapeRecorder({
        port,
        instance: 'flood',
        flushMs: 600_000,
        now: at('2026-11-23T10:00:00Z'),
        onDropped: (_protocol, count) => {
          dropped += count;
        },
      });
      let largest = 0;
      for (let index = 0; index < 100_000; index++) {
        const signature = operationSignature(
          parse(`query Flood${index} { products(first: ${index}) { nodes { id } } }`),
        );
        recorder.record('graphql', { apiKeyId: 31, client: 'flood/1.0' }, [`sig:${signature.hash}`], signature);
        largest = Math.max(largest, recorder.size.entries);
        if (index % 20_000 === 19_999) {
          const quiet = operationSignature(parse(`query Quiet${index} { products { nodes { name } } }`));
          recorder.record('graphql', { apiKeyId: 32, client: 'quiet/1.0' }, [`sig:${quiet.hash}`], quiet);
          await recorder.flush();
        }
      }
      await recorder.close();
      // The buffer held at most one key's cap (2,000 by default) of the flood, and the table the key's share.
      expect(largest).toBe(2_000);
      const rows = await port.uses({ sinceDay: '2026-11-23', protocol: 'graphql', prefix: 'sig:' });
      const flood = rows.filter((row) => row.apiKeyId === 31);
      expect(flood.length).toBeLessThanOrEqual(5_000);
      expect(rows.filter((row) => row.apiKeyId === 32)).toHaveLength(5);
      // Each document recorded or counted as dropped, in the table as by the recorder.
      const recorded = flood.reduce((sum, row) => sum + row.count, 0);
      expect(recorded + dropped).toBe(100_000);
      const [day] = await port.coverage('2026-11-23');
      expect(day?.dropped).toEqual({ graphql: dropped });
    },
    120_000,
  );

  it('purges the days past retention and the signatures no row names any longer', async () => {
    const port = shapeStore(database.db);
    const old = createShapeRecorder({ port, instance: 'old', flushMs: 600_000, now: at('2026-08-01T10:00:00Z') });
    old.record('graphql', { apiKeyId: 21, client: 'c/1' }, ['sig:old1'], signatureOf('old1'));
    await old.close();
    expect(await port.signatures(['old1'])).toHaveLength(1);
    const recent = createShapeRecorder({
      port,
      instance: 'recent',
      flushMs: 600_000,
      retentionDays: 90,
      now: at('2026-11-25T10:00:00Z'),
    });
    recent.record('rest', { apiKeyId: 21, client: 'c/1' }, ['GET /v1/orders']);
    await recent.close();
    expect(await port.uses({ sinceDay: '2026-01-01', prefix: 'sig:old1' })).toEqual([]);
    expect(await port.signatures(['old1'])).toEqual([]);
    expect(await port.uses({ sinceDay: '2026-11-25', shapes: ['GET /v1/orders'] })).not.toEqual([]);
  });
});
