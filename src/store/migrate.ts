import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../project-root.js';
import type { Database } from './database.js';

// The SQL files stay in src/ (the compiler copies no .sql); compiled code reads them from there too.
const migrationsDir = path.join(projectRoot, 'src/store/migrations');

/**
 * Applies the versioned SQL migrations that the database has not seen, in name order, each in its own
 * transaction and recorded in `schema_migrations`. An advisory lock makes instances that start together
 * on one server apply them once.
 */
export async function migrate(db: Database): Promise<string[]> {
  // Under the same lock as the migrations: two instances creating the table at once both pass IF NOT EXISTS
  // and one fails on the catalog's unique index (seen when three instances started together).
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7220150)');
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const files = (await readdir(migrationsDir)).filter((file) => file.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    const script = await readFile(path.join(migrationsDir, file), 'utf8');
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7220150)');
      const seen = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version]);
      if (seen.length > 0) return false;
      for (const statement of splitStatements(script)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      return true;
    });
    if (ran) applied.push(version);
  }
  return applied;
}

/**
 * Splits a migration script on semicolons at line ends, keeping a dollar-quoted body (`$$ … $$`, a
 * function's) whole; the scripts hold no literals with `;` at a line end.
 */
function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let open = '';
  for (const piece of script.split(/;\s*$/m)) {
    open = open ? `${open};${piece}` : piece;
    if ((open.match(/\$\$/g) ?? []).length % 2 === 0) {
      statements.push(open);
      open = '';
    }
  }
  return statements.map((statement) => statement.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);
}
