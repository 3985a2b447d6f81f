/**
 * Paging benchmark (issue: keyset paging in constant time). Loads 100k orders, then times the core's
 * order list for page 1 and for page 1000 (size 20, so the cursor of row 19 980), for the default sort
 * and for `-amount`, and prints the ratio. Keyset paging should keep page 1000 within 2× of page 1.
 *
 *   npm run bench:paging                      # embedded PGlite, in memory
 *   DATABASE_URL=postgres://… npm run bench:paging   # a real server (a scratch schema, dropped after)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Caller } from '../../src/core/index.js';
import { filterDigest } from '../../src/core/shared/cursor.js';
import { formatSort, parseSort } from '../../src/core/shared/paging.js';
import { createPgDatabase, createPgliteDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { benchCore } from './bench-core.js';
import { loadDataset } from './dataset.js';

const url = process.env.DATABASE_URL;
const schema = `bench_${randomBytes(4).toString('hex')}`;
const db = url ? await createPgDatabase(url, { schema }) : await createPgliteDatabase('memory://');
const rounds = Number(process.env.ROUNDS ?? 200);

try {
  await migrate(db);
  const started = performance.now();
  const { adminUserId } = await loadDataset(db);
  console.log(`database: ${db.kind}; loaded 100k orders in ${Math.round(performance.now() - started)} ms`);
  const core = await benchCore(db);
  const admin: Caller = { userId: adminUserId, role: 'admin', apiKeyId: null };

  for (const sort of ['-createdAt', '-amount']) {
    // The cursor of page 1000 is made the way the service makes it: from the last row of page 999.
    const keys = parseSort(sort, ['createdAt', 'amount', 'id'], '-createdAt');
    const orderBy = keys
      .map(
        (k) =>
          `${k.field === 'createdAt' ? 'created_at' : k.field === 'amount' ? 'amount_minor' : 'id'} ${k.descending ? 'DESC' : 'ASC'}`,
      )
      .join(', ');
    const [row] = await db.query<{ id: number; created_at: Date; amount_minor: number }>(
      `SELECT id, created_at, amount_minor FROM orders ORDER BY ${orderBy} OFFSET 19979 LIMIT 1`,
    );
    if (!row) throw new Error('data set too small');
    const cursor = core.cursors.encode(
      formatSort(keys),
      filterDigest({}),
      keys.map((k) =>
        k.field === 'createdAt' ? row.created_at.toISOString() : k.field === 'amount' ? row.amount_minor : row.id,
      ),
    );
    const time = async (cursorOrNot?: string) => {
      const samples: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const t = performance.now();
        const page = await core.orders.list(admin, { sort, size: 20, ...(cursorOrNot ? { cursor: cursorOrNot } : {}) });
        samples.push(performance.now() - t);
        if (page.items.length !== 20) throw new Error('short page');
      }
      samples.sort((a, b) => a - b);
      return samples[Math.floor(samples.length / 2)] as number;
    };
    await time(); // warm up
    const first = await time();
    const thousandth = await time(cursor);
    console.log(
      `sort ${sort.padEnd(11)} page 1: ${first.toFixed(2)} ms   page 1000: ${thousandth.toFixed(2)} ms   ratio ${(thousandth / first).toFixed(2)}`,
    );
  }
} finally {
  await db.close();
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
