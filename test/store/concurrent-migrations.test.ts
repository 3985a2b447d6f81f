/**
 * Instances that start together on one fresh PostgreSQL database apply the migrations once, and none of them
 * fails: the scale check's three instances once lost one to `duplicate key value violates unique
 * constraint "pg_type_typname_nsp_index"` (two creating `schema_migrations` at once). PostgreSQL only.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';

const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

describe.runIf(requires(testDatabaseUrl, 'migrations of instances starting together', 'set TEST_DATABASE_URL'))(
  'migrations of instances starting together',
  () => {
    it('apply every migration once, with no instance failing, five times over', async () => {
      for (let round = 0; round < 5; round++) {
        const schema = `migrate_race_${randomBytes(4).toString('hex')}`;
        // The schema is the test's own (created by the first connection); the instances race on what is in it.
        const first = await createPgDatabase(testDatabaseUrl as string, { schema, max: 2 });
        const instances = [
          first,
          ...(await Promise.all([2, 3].map(() => createPgDatabase(testDatabaseUrl as string, { schema, max: 2 })))),
        ];
        opened.push(...instances);
        try {
          const applied = await Promise.all(instances.map((db) => migrate(db)));
          const all = applied.flat();
          expect(new Set(all).size).toBe(all.length);
          expect(all.length).toBeGreaterThan(10);
        } finally {
          await first.exec(`DROP SCHEMA ${schema} CASCADE`);
        }
      }
    });
  },
);
