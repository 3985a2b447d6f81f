import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Core, type CoreOptions, createCore } from '../../src/core/index.js';
import { createInventoryService, type InventoryService } from '../../src/core/inventory/inventory.js';
import type { Store } from '../../src/core/ports/index.js';
import { createInventoryClient } from '../../src/grpc/inventory-client.js';
import { createPgDatabase, createPgliteDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { createSqlStore } from '../../src/store/sql-store.js';

/** A migrated, empty database of its own for one test file. */
export interface TestDatabase {
  db: Database;
  store: Store;
  /** The schema used on a real server (undefined on PGlite). */
  schema?: string;
  close(): Promise<void>;
}

/** The real PostgreSQL server tests run against, when `TEST_DATABASE_URL` is set (CI sets it). */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/**
 * A fresh embedded database directory, removed by `remove`: a copy of the suite's migrated, empty template
 * (made once per run by test/support/global-setup.ts), or an empty directory, where the server creates its
 * cluster and migrates on its first start, when there is no template.
 */
export function embeddedDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-data-`));
  const template = inject('pgliteTemplate');
  if (template) cpSync(template, dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Opens a fresh database: an embedded PGlite in a directory of its own by default, or a schema of its own
 * on the server named by `TEST_DATABASE_URL` (dropped on close), so files can run in parallel without
 * seeing each other's rows.
 */
export async function openTestDatabase(options: { poolSize?: number } = {}): Promise<TestDatabase> {
  if (!testDatabaseUrl) {
    const data = embeddedDataDir('order-api-test');
    let db: Database | undefined;
    try {
      db = await createPgliteDatabase(data.dir);
      await migrate(db);
    } catch (error) {
      await db?.close();
      data.remove();
      throw error;
    }
    const opened = db;
    return {
      db: opened,
      store: createSqlStore(opened),
      async close() {
        try {
          await opened.close();
        } finally {
          data.remove();
        }
      },
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = await createPgDatabase(testDatabaseUrl, { schema, max: options.poolSize ?? 10 });
  await migrate(db);
  return {
    db,
    store: createSqlStore(db),
    schema,
    async close() {
      await db.close();
      await dropSchema(schema);
    },
  };
}

/** Drops a test schema on the test server. */
export async function dropSchema(schema: string): Promise<void> {
  if (testDatabaseUrl) await runOnTestServer(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
}

/**
 * Runs one statement on the test server from a connection of its own (as another instance would), in
 * `schema` when one is given.
 */
export async function runOnTestServer(sql: string, schema?: string): Promise<void> {
  const client = new pg.Client({
    connectionString: testDatabaseUrl,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Where a server a test starts keeps its data; a second process given the same `env` opens the same database. */
export interface ServerDatabase {
  env: Record<string, string>;
  /** Drops the schema or removes the directory. */
  remove(): Promise<void>;
}

/**
 * The database settings of a server a test starts (and of the commands it runs against that database): a
 * schema of its own on the test server, or an embedded database in a fresh directory.
 */
export function serverDatabase(prefix: string): ServerDatabase {
  if (testDatabaseUrl) {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    return { env: { DATABASE_URL: testDatabaseUrl, DATABASE_SCHEMA: schema }, remove: () => dropSchema(schema) };
  }
  const data = embeddedDataDir(prefix);
  return { env: { DATA_DIR: data.dir, SEED_DEMO: 'false' }, remove: async () => data.remove() };
}

/** The core as the server builds it, with the inventory service that stands beside it. */
export type TestCore = Core & { inventory: InventoryService };

/**
 * Builds the core over a test store with the defaults of the server, wired as the server wires it: the
 * inventory service beside the core, order placement reaching it through the gRPC client over the
 * in-process router transport (the same handlers, interceptors and error mapping, no socket). An
 * `inventory` override replaces that client (a test's failing or slow inventory).
 */
/** The core's bounds that `npm run generate` derives from the contracts, as the server reads them. */
export const coreRules = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../generated/core-rules.json'), 'utf8'),
) as { orderItemQuantity: { minimum: number; maximum: number } };

export async function testCore(store: Store, overrides: Partial<CoreOptions> = {}): Promise<TestCore> {
  const inventory = createInventoryService(store);
  const core = await createCore({
    store,
    inventory: createInventoryClient(inventory, {}),
    vatRate: 0.1,
    // Ten times the server's default placement budget: a test proves its rule, not that a machine whose
    // cores are kept busy places an order within 2 s. Tests of the budget pass their own.
    requestTimeoutMs: 20_000,
    maxItemQuantity: coreRules.orderItemQuantity.maximum,
    ...overrides,
  });
  return { ...core, inventory };
}
