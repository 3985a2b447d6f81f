/**
 * Statements prepared by name on a PostgreSQL server (DATABASE_PREPARED_STATEMENTS): each connection parses
 * a statement once, within a bound, and a statement the server no longer accepts after a migration is
 * prepared again instead of failing requests. A server feature: these run with TEST_DATABASE_URL (CI runs
 * them; the last test runs everywhere); the embedded database has no pool and no named statements.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase, type Database } from '../../src/store/database.js';
import { isStalePreparedStatement, StatementNames } from '../../src/store/statement-names.js';
import { dropSchema, runOnTestServer, testDatabaseUrl } from '../support/database.js';
import { requires } from '../support/requires.js';

const opened: { db: Database; schema: string }[] = [];

/**
 * A database over a schema of its own with `max` pooled connections (by default one, so every statement
 * meets the same session).
 */
async function openPool(preparedStatements?: number, max = 1): Promise<{ db: Database; schema: string }> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = await createPgDatabase(testDatabaseUrl as string, {
    schema,
    max,
    ...(preparedStatements !== undefined ? { preparedStatements } : {}),
  });
  await db.exec('CREATE TABLE things (id bigint PRIMARY KEY, name text NOT NULL)');
  await db.exec(`INSERT INTO things VALUES (1, 'lamp'), (2, 'desk')`);
  opened.push({ db, schema });
  return { db, schema };
}

/** The statements the pool's session holds prepared (the server's own view). */
async function preparedTexts(db: Database): Promise<string[]> {
  const rows = await db.transaction((tx) =>
    tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY prepare_time'),
  );
  return rows.map((row) => row.statement);
}

afterEach(async () => {
  for (const { db, schema } of opened.splice(0)) {
    await db.close();
    await dropSchema(schema);
  }
});

describe.runIf(
  requires(testDatabaseUrl, 'statements prepared by name on a PostgreSQL server', 'set TEST_DATABASE_URL'),
)('statements prepared by name on the server', () => {
  const byId = 'SELECT * FROM things WHERE id = $1';

  it('prepares a statement once per connection and runs it again by name', async () => {
    const { db } = await openPool();
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp' }]);
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk' }]);
    expect((await preparedTexts(db)).filter((text) => text === byId)).toHaveLength(1);
  });

  it('prepares no statement when the setting is 0', async () => {
    const { db } = await openPool(0);
    await db.query(byId, [1]);
    await db.query(byId, [2]);
    expect(await preparedTexts(db)).toEqual([]);
  });

  it('prepares only the first distinct statements up to the limit and runs the rest unnamed', async () => {
    const { db } = await openPool(2);
    const texts = [byId, 'SELECT name FROM things WHERE id = $1', 'SELECT id FROM things WHERE name = $1'];
    for (const text of texts) await db.query(text, [text === texts[2] ? 'lamp' : 1]);
    expect(await db.query(texts[2] as string, ['desk'])).toEqual([{ id: 2 }]);
    expect(await preparedTexts(db)).toEqual(texts.slice(0, 2));
  });

  it('answers with the new columns after another instance migrates the table under a prepared SELECT *', async () => {
    const { db, schema } = await openPool();
    await db.query(byId, [1]);
    await runOnTestServer(`ALTER TABLE things ADD COLUMN colour text NOT NULL DEFAULT 'red'`, schema);
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp', colour: 'red' }]);
    // Prepared again (the session that refused it is replaced by the pool): later runs are named, and succeed.
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk', colour: 'red' }]);
    expect(await preparedTexts(db)).toEqual([byId]);
  });

  it('renews every name after a refusal, so the connections that did not refuse it yet keep serving', async () => {
    const { db, schema } = await openPool(undefined, 2);
    // pg_sleep keeps the first statement busy, so the second one takes the pool's other connection.
    const slowById = 'SELECT *, pg_backend_pid() AS pid, pg_sleep(0.2)::text AS slept FROM things WHERE id = $1';
    const pids = async (runs: number) =>
      (await Promise.all(Array.from({ length: runs }, () => db.query<{ pid: number }>(slowById, [1])))).map(
        (rows) => rows[0]?.pid,
      );
    const before = await pids(2);
    expect(new Set(before).size).toBe(2);
    await runOnTestServer('ALTER TABLE things ADD COLUMN colour text', schema);
    await pids(1); // refused on one connection, which the pool replaces; answered on the other, unnamed
    const after = await pids(2);
    // The connection that was not refused runs the statement under its new name instead of being refused too.
    expect(after.filter((pid) => before.includes(pid))).toHaveLength(1);
  });

  it('prepares a statement again when the session lost it', async () => {
    const { db } = await openPool();
    await db.query(byId, [1]);
    await db.exec('DEALLOCATE ALL');
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk' }]);
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp' }]);
  });
});

describe('a refused prepared statement', () => {
  it('is recognised by its routine whatever the server language, and other errors are not', () => {
    const changed = { code: '0A000', routine: 'RevalidateCachedQuery' };
    expect(
      isStalePreparedStatement({ ...changed, message: 'der gecachte Plan darf den Ergebnistyp nicht ändern' }),
    ).toBe(true);
    expect(isStalePreparedStatement({ code: '0A000', message: 'cached plan must not change result type' })).toBe(true);
    expect(isStalePreparedStatement({ code: '0A000', routine: 'transformSelectStmt', message: 'not supported' })).toBe(
      false,
    );
    expect(isStalePreparedStatement({ code: '23505', message: 'duplicate key' })).toBe(false);
    expect(isStalePreparedStatement(undefined)).toBe(false);
  });
});

describe('statement names', () => {
  it('differ between instances, so a pooler sharing server connections never runs one instance’s statement for another', () => {
    const sql = 'SELECT * FROM orders WHERE id = $1';
    const [one, other] = [new StatementNames(100), new StatementNames(100)];
    expect(one.of(sql)).toBe(one.of(sql));
    expect(one.of(sql)).not.toBe(other.of(sql));
  });
});
