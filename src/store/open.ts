import { mkdir } from 'node:fs/promises';
import { createPgDatabase, createPgliteDatabase, type Database } from './database.js';
import { migrate } from './migrate.js';

/** Where the data lives: a PostgreSQL server when a URL is given, else the embedded database in a directory. */
export interface DatabaseSettings {
  url?: string;
  schema?: string;
  poolSize?: number;
  /** The bound of every statement on a server (see createPgDatabase). */
  statementTimeoutMs?: number;
  /** Statements prepared by name on each server connection (0: none); see createPgDatabase. */
  preparedStatements?: number;
  dataDir: string;
}

/** Opens the configured database and applies pending migrations; returns it with the migrations applied now. */
export async function openDatabase(settings: DatabaseSettings): Promise<{ db: Database; applied: string[] }> {
  if (settings.url) {
    const { url, schema, poolSize, statementTimeoutMs, preparedStatements } = settings;
    const named = schema ? { schema } : {};
    // Migrations are not bound by the statement timeout (an index on a large table takes minutes), nor is
    // the wait for another instance's migrations: they run on a connection of their own first.
    const migrator = await createPgDatabase(url, { ...named, max: 1, preparedStatements: 0 });
    let applied: string[];
    try {
      applied = await migrate(migrator);
    } finally {
      await migrator.close();
    }
    const db = await createPgDatabase(url, {
      ...named,
      ...(poolSize ? { max: poolSize } : {}),
      ...(statementTimeoutMs ? { statementTimeoutMs } : {}),
      ...(preparedStatements !== undefined ? { preparedStatements } : {}),
    });
    return { db, applied };
  }
  if (settings.dataDir !== 'memory://') await mkdir(settings.dataDir, { recursive: true });
  const db = await createPgliteDatabase(settings.dataDir);
  try {
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
