import { mkdir } from 'node:fs/promises';
import { createPgDatabase, createPgliteDatabase, type Database } from './database.js';
import { migrate } from './migrate.js';

/** Where the data lives: a PostgreSQL server when a URL is given, else the embedded database in a directory. */
export interface DatabaseSettings {
  url?: string;
  schema?: string;
  poolSize?: number;
  /** Statements prepared by name on each server connection (0: none); see createPgDatabase. */
  preparedStatements?: number;
  dataDir: string;
}

/** Opens the configured database and applies pending migrations; returns it with the migrations applied now. */
export async function openDatabase(settings: DatabaseSettings): Promise<{ db: Database; applied: string[] }> {
  let db: Database;
  if (settings.url) {
    db = await createPgDatabase(settings.url, {
      ...(settings.schema ? { schema: settings.schema } : {}),
      ...(settings.poolSize ? { max: settings.poolSize } : {}),
      ...(settings.preparedStatements !== undefined ? { preparedStatements: settings.preparedStatements } : {}),
    });
  } else {
    if (settings.dataDir !== 'memory://') await mkdir(settings.dataDir, { recursive: true });
    db = await createPgliteDatabase(settings.dataDir);
  }
  try {
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
