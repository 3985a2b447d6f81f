/**
 * Statements prepared by name on a PostgreSQL server (DATABASE_PREPARED_STATEMENTS): each connection parses
 * and plans a statement once, within a bound, and a statement the server no longer accepts after a
 * migration is prepared again instead of failing requests. A server feature: these run with
 * TEST_DATABASE_URL (CI runs them); the embedded database has no pool and no named statements.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase, type Database } from '../../src/store/database.js';
import { dropSchema, runInSchema, testDatabaseUrl } from '../support/database.js';

const opened: { db: Database; schema: string }[] = [];

/** A database over a schema of its own with one pooled connection, so every statement meets the same session. */
async function openOneConnection(preparedStatements?: number): Promise<{ db: Database; schema: string }> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = await createPgDatabase(testDatabaseUrl as string, {
    schema,
    max: 1,
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

describe.runIf(testDatabaseUrl)('statements prepared by name on the server', () => {
  const byId = 'SELECT * FROM things WHERE id = $1';

  it('prepares a statement once per connection and runs it again by name', async () => {
    const { db } = await openOneConnection();
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp' }]);
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk' }]);
    expect((await preparedTexts(db)).filter((text) => text === byId)).toHaveLength(1);
  });

  it('prepares no statement when the setting is 0', async () => {
    const { db } = await openOneConnection(0);
    await db.query(byId, [1]);
    await db.query(byId, [2]);
    expect(await preparedTexts(db)).toEqual([]);
  });

  it('prepares only the first distinct statements up to the limit and runs the rest unnamed', async () => {
    const { db } = await openOneConnection(2);
    const texts = [byId, 'SELECT name FROM things WHERE id = $1', 'SELECT id FROM things WHERE name = $1'];
    for (const text of texts) await db.query(text, [text === texts[2] ? 'lamp' : 1]);
    expect(await db.query(texts[2] as string, ['desk'])).toEqual([{ id: 2 }]);
    expect(await preparedTexts(db)).toEqual(texts.slice(0, 2));
  });

  it('answers with the new columns after another instance migrates the table under a prepared SELECT *', async () => {
    const { db, schema } = await openOneConnection();
    await db.query(byId, [1]);
    await runInSchema(schema, `ALTER TABLE things ADD COLUMN colour text NOT NULL DEFAULT 'red'`);
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp', colour: 'red' }]);
    // Prepared again (the session that refused it is replaced by the pool): later runs are named, and succeed.
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk', colour: 'red' }]);
    expect(await preparedTexts(db)).toEqual([byId]);
  });

  it('prepares a statement again when the session lost it', async () => {
    const { db } = await openOneConnection();
    await db.query(byId, [1]);
    await db.exec('DEALLOCATE ALL');
    expect(await db.query(byId, [2])).toEqual([{ id: 2, name: 'desk' }]);
    expect(await db.query(byId, [1])).toEqual([{ id: 1, name: 'lamp' }]);
  });
});
