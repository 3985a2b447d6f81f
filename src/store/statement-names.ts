import { randomBytes } from 'node:crypto';

/**
 * Names for the statements a PostgreSQL pool runs, so that each connection parses a statement once (a
 * named prepared statement) and afterwards only binds and executes it; PostgreSQL plans it by its plan
 * cache's rules (for its values on the first five runs, then once for all values when that plan is
 * estimated no dearer). The server's parse and plan work is most of the cost of a short statement, and on a
 * machine that hosts both the server and the API it is CPU the API does not get.
 *
 * The first `limit` distinct SQL texts are named, in the order they are first run; later ones run unnamed,
 * so the statements a connection keeps stay bounded however many filter combinations clients send (a
 * renewal, below, starts a new set; a connection that kept the old one keeps it until it closes).
 * Every SQL text of the store binds its values as parameters, so distinct texts are distinct shapes.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  // Names of their own per process: behind a pooler that shares server connections between instances, one
  // instance's name never runs another instance's statement (it is missing there, 26000, and runs again).
  readonly #prefix = `order_api_${randomBytes(4).toString('hex')}`;
  #generation = 0;

  constructor(private readonly limit: number) {}

  /** The name of `sql`, or undefined when it runs unnamed (the limit is reached, or naming is off). */
  of(sql: string): string | undefined {
    const known = this.#names.get(sql);
    if (known !== undefined || this.#names.size >= this.limit) return known;
    const name = `${this.#prefix}_${this.#generation}_${this.#names.size}`;
    this.#names.set(sql, name);
    return name;
  }

  /**
   * Forgets every name: each statement is prepared again, under a new name, on every connection. Called
   * when the server no longer accepts a prepared statement (see `isStalePreparedStatement`).
   */
  forget(): void {
    this.#generation += 1;
    this.#names.clear();
  }
}

/**
 * Whether the server refused a prepared statement that no longer fits (the statement itself is fine):
 * a migration changed the columns a `SELECT *` returns (0A000 from RevalidateCachedQuery: "cached plan must
 * not change result type", whatever the server's language), the statement is gone from the connection
 * (26000), or its name is taken there (42P05, behind a pooler that shares server connections). The server
 * raises all three before executing anything, so running the statement again is safe.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const { code, routine, message } = (error ?? {}) as { code?: unknown; routine?: unknown; message?: unknown };
  if (code === '26000' || code === '42P05') return true;
  return (
    code === '0A000' &&
    (routine === 'RevalidateCachedQuery' || /cached plan must not change result type/.test(String(message)))
  );
}
