import { type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import {
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { Database, Queryable } from './database.js';

/**
 * The embedded database with a span per statement when tracing is on (a tracer given), the spans `@opentelemetry/instrumentation-pg` writes
 * for a server (`pg.query:SELECT`, kind client, `db.system.name` = `postgresql`, `db.query.text`), so
 * that a trace reads the same on either database. PGlite is no network client the instrumentation could
 * patch; a server's database is returned as it is, the instrumentation writes its spans.
 */
export function traceDatabase(db: Database, tracer: Tracer | undefined): Database {
  if (!tracer || db.kind !== 'pglite') return db;
  const traced = (queryable: Queryable): Queryable['query'] =>
    function query(sql, params) {
      // Statements outside a request (health probes, timers, usage flushes) stay untraced, as the pg
      // instrumentation's `requireParentSpan` leaves them on a server.
      if (!trace.getActiveSpan()) return queryable.query(sql, params);
      return tracer.startActiveSpan(
        `pg.query:${operationOf(sql)}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL, [ATTR_DB_QUERY_TEXT]: sql },
        },
        (span) => ended(span, queryable.query(sql, params)),
      );
    } as Queryable['query'];
  return {
    ...db,
    query: traced(db),
    transaction: (work) =>
      db.transaction((tx) => work({ query: traced(tx), afterCommit: (callback) => tx.afterCommit(callback) })),
  };
}

/** The statement's first word, upper-cased, as the pg instrumentation names its spans. */
function operationOf(sql: string): string {
  const text = sql.trimStart();
  const space = text.search(/\s/);
  const word = (space === -1 ? text : text.slice(0, space)).toUpperCase();
  return word.endsWith(';') ? word.slice(0, -1) : word;
}

async function ended<T>(span: Span, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : 'Error');
    if (error instanceof Error) span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
