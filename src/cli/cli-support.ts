/**
 * What the operator commands share (`usage:report`, `usage:export`, `brownouts`): the registry and the
 * database the server uses — `DATABASE_URL` and `DATABASE_SCHEMA`, or the embedded database in `DATA_DIR`
 * (default ./data; stop the server first, the embedded database is one process per directory). Whoever
 * can reach the database is the operator.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { EVIDENCE_WINDOW } from '../core/lifecycle/deprecations.js';
import type { Caller } from '../core/shared/caller.js';
import { projectRoot } from '../project-root.js';
import type { Database } from '../store/database.js';
import { openDatabase } from '../store/open.js';

/** The caller the commands act as. */
export const OPERATOR: Caller = { userId: 0, role: 'admin', apiKeyId: null };

/** The generated registry, or the one named by `--registry <file>`. */
export function readRegistry(file?: string): DeprecationRegistry {
  const registryFile = file ? path.resolve(file) : path.join(projectRoot, 'generated/deprecations.json');
  return JSON.parse(readFileSync(registryFile, 'utf8')) as DeprecationRegistry;
}

/** Opens the server's database (migrated), runs `work`, closes it. */
export async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const { db } = await openDatabase({
    ...(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : {}),
    ...(process.env.DATABASE_SCHEMA ? { schema: process.env.DATABASE_SCHEMA } : {}),
    dataDir: process.env.DATA_DIR ?? './data',
    // A command runs a handful of statements once each: preparing them by name would gain nothing.
    preparedStatements: 0,
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Runs a command's main: a failure prints its message (a domain error its detail) and exits 1. */
export function runCommand(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const detail = (error as { detail?: unknown }).detail;
    console.error(typeof detail === 'string' ? detail : error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

/** `--days` as a window of whole days, 1 to the evidence window (366). */
export function windowDays(text: string | undefined): number {
  const days = Number(text);
  if (!Number.isInteger(days) || days < 1 || days > EVIDENCE_WINDOW)
    throw new Error(`--days takes a whole number of days, 1 to ${EVIDENCE_WINDOW}`);
  return days;
}

/** Prints a document as JSON, or writes it to `out` (its folder made) and prints `summary` instead. */
export function writeJsonOut(out: string | undefined, document: unknown, summary: string): void {
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (!out) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  writeFileSync(out, text);
  console.log(`${out}: ${summary}`);
}
