import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import postgresDate from 'postgres-date';
import { commitHooks } from './commit-hooks.js';
import { asInputError } from './constraint-violations.js';
import { asUnavailable, isUnavailable } from './database-errors.js';

import { listenOnServer } from './pg-listener.js';
import { isStalePreparedStatement, StatementNames } from './statement-names.js';

/** Something that runs one parameterized SQL statement. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
}

/** The statements of one open transaction. */
export interface Transaction extends Queryable {
  /** Calls `callback` once the transaction committed (never when it rolls back); it must not throw. */
  afterCommit(callback: () => void): void;
}

/** A PostgreSQL database, embedded or on a server, with the same JavaScript types either way. */
export interface Database extends Queryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Calls `onPayload` with the payload of every notification on `channel` (an empty payload after a lost
   * connection came back: notifications may have been missed). Resolves once listening, to a stop function.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** The name of a notification channel for this database: channels are server-wide, schemas are not. */
  channel(base: string): string;
  readonly kind: 'pglite' | 'postgres';
  /** Connections of the pool (a PostgreSQL server only; the embedded database has one session, no pool). */
  poolStats?(): { total: number; idle: number; waiting: number };
}

const INT8 = 20;
const NUMERIC = 1700;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

// Counts and bigint ids fit in a double here (ids from sequences, money in minor units below 2^53), so both
// drivers hand them out as numbers; pg's default is strings, PGlite's is numbers.
const toNumber = (value: string) => Number(value);
// postgres-date is CommonJS (`module.exports = parseDate`) while its types declare a default export, so the
// default import is the function at run time but not to the compiler.
const parseTimestamp = postgresDate as unknown as (value: string) => Date | number | null;
const toTimestamp = (value: string) => parseTimestamp(value);

/**
 * The type parsers of a server connection: numbers as above, and timestamps by postgres-date 2 (the
 * parser of pg-types 4), which reads PostgreSQL's text form about 2.7 times faster than the regular
 * expressions of pg 8's postgres-date 1, with the same results (offsets, BC years, infinity). A page of
 * orders carries dozens of timestamps. The embedded database uses the same timestamp parser, so both
 * give the same instants (PGlite's own reads years 0-99 as 1900-1999).
 */
export const pgTypeParsers = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    if ((oid === TIMESTAMPTZ || oid === TIMESTAMP) && format !== 'binary') return toTimestamp;
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * Opens the embedded database: in memory when `dataDir` is undefined or `memory://`, else persisted in
 * that directory (one process per directory). PGlite runs one statement at a time, so its transactions
 * are serialized by PGlite itself.
 */
export async function createPgliteDatabase(dataDir?: string): Promise<Database> {
  const db = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir, {
    // Passed every time the database opens: PGlite loads an extension only when it is given here.
    extensions: { pg_trgm },
    parsers: { [INT8]: toNumber, [NUMERIC]: toNumber, [TIMESTAMP]: toTimestamp, [TIMESTAMPTZ]: toTimestamp },
  });
  return {
    kind: 'pglite',
    async query(sql, params) {
      return (await db.query(sql, params).catch(rethrowAsInput)).rows as never;
    },
    async transaction(work) {
      const hooks = commitHooks();
      const query = (tx: { query: PGlite['query'] }) => async (sql: string, params?: unknown[]) =>
        (await tx.query(sql, params).catch(rethrowAsInput)).rows as never;
      const result = await db.transaction((tx) => work({ query: query(tx), afterCommit: hooks.add }));
      hooks.committed();
      return result;
    },
    async exec(script) {
      await db.exec(script);
    },
    async listen(channel, onPayload) {
      const stop = await db.listen(channel, onPayload);
      return async () => {
        if (!db.closed) await stop();
      };
    },
    channel: (base) => base,
    close: () => db.close(),
  };
}

const rowsOf = <Row>(result: { rows: Row[] }) => result.rows;
const rethrowAsInput = (error: unknown): never => {
  throw asInputError(error);
};
const rethrowUnavailable = (error: unknown): never => {
  throw asUnavailable(error);
};

/**
 * Runs `work` in one transaction on a client of the pool, then its after-commit callbacks; a lost
 * connection becomes DATABASE_UNAVAILABLE.
 */
async function poolTransaction<T>(pool: pg.Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw asUnavailable(error);
  }
  // A checked-out client has no listener of the pool's: without this one, a server restart while the
  // client is out raises an unhandled 'error' event that ends the process. The failure itself reaches
  // the pending query as a rejection; the broken client is destroyed on release below.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  const hooks = commitHooks();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await work({
      query: async (sql, params) => (await client.query(sql, params).catch(rethrowAsInput)).rows,
      afterCommit: hooks.add,
    });
    await client.query('COMMIT');
  } catch (error) {
    if (!lost && !isUnavailable(error)) await client.query('ROLLBACK').catch(() => undefined);
    if (isUnavailable(error)) lost ??= error as Error;
    throw asUnavailable(error);
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
  hooks.committed();
  return result;
}

/** Options of a server connection. */
export interface PgDatabaseOptions {
  /** Use this schema (tests give each file its own); created when missing. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /** How long a request waits for a connection before DATABASE_UNAVAILABLE (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * The bound of every statement, BEGIN and COMMIT (0, the default: none; the server sets
   * DATABASE_STATEMENT_TIMEOUT_MS): past it the client gives up waiting (a
   * hung connection, a black-holed network), destroys the connection and answers DATABASE_UNAVAILABLE; the
   * server cancels a statement still running then (`statement_timeout`). A COMMIT or a single-statement
   * write cut off so has an unknown outcome, and is treated as a lost connection (docs/decisions.md §3).
   */
  statementTimeoutMs?: number;
  /**
   * How many distinct statements run outside transactions are prepared by name on each connection
   * (default 100; 0 runs every statement unnamed, as a pooler in transaction mode needs). See StatementNames.
   */
  preparedStatements?: number;
}

/** A named statement as a `pg.Query` made from its text (pg copies a config object on every call). */
function namedQuery(name: string, text: string, values: unknown[] | undefined): pg.QueryConfig {
  const query = new pg.Query(text, values) as pg.Query & { name: string };
  query.name = name;
  return query as unknown as pg.QueryConfig;
}

/** Connects to a PostgreSQL server through a `pg` pool. */
export async function createPgDatabase(
  url: string,
  {
    schema,
    max = 10,
    connectTimeoutMs = 5000,
    preparedStatements = 100,
    statementTimeoutMs = 0,
  }: PgDatabaseOptions = {},
): Promise<Database> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: pgTypeParsers,
    connectionTimeoutMillis: connectTimeoutMs,
    query_timeout: statementTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // A connection whose peer vanished (no FIN, no RST) is found by TCP keep-alive, not only by a timeout.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on the next checkout.
  });
  const names = new StatementNames(preparedStatements);
  const unnamed = (sql: string, params?: unknown[]) => pool.query(sql, params).then(rowsOf, rethrowUnavailable);
  return {
    kind: 'postgres',
    // Promise chains rather than async functions: one frame fewer on every statement.
    query(sql, params) {
      const name = names.of(sql);
      if (name === undefined) return unnamed(sql, params);
      return pool.query(namedQuery(name, sql, params)).then(rowsOf, (error: unknown) => {
        if (!isStalePreparedStatement(error)) return rethrowUnavailable(error);
        // A migration (of another instance, in a rolling deploy) changed a table under the prepared statements.
        names.forget();
        return unnamed(sql, params);
      });
    },
    transaction: (work) => poolTransaction(pool, work),
    async exec(script) {
      try {
        await pool.query(script);
      } catch (error) {
        throw asUnavailable(error);
      }
    },
    listen: (channel, onPayload) => listenOnServer(url, schema, channel, onPayload),
    channel: (base) => (schema ? `${base}_${schema}` : base),
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
