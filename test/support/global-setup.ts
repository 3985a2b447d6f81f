import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createPgliteDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated, empty embedded database directory that tests copy instead of creating their own. */
    pgliteTemplate: string | undefined;
  }
}

/**
 * Once per `vitest run` on the embedded database: one migrated, empty PGlite data directory. Creating a
 * cluster (initdb) costs about 2 s of CPU, and the suite opens some forty embedded databases; a copy of
 * this one opens in about 0.5 s. On a PostgreSQL server (TEST_DATABASE_URL) each test makes a schema.
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteTemplate', undefined);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'order-api-template-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const db = await createPgliteDatabase(dir);
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  } catch (error) {
    remove();
    throw error;
  }
  project.provide('pgliteTemplate', dir);
  return remove;
}
