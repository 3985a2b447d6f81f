/**
 * Tests that need something `npm test` does not have by default (a PostgreSQL server, Redis, leave to
 * restart PostgreSQL) are skipped without it, and say so in the output, so a green run never hides what
 * it did not run.
 */
export function requires(condition: unknown, what: string, enable: string): boolean {
  if (!condition) console.warn(`SKIPPED: ${what} (${enable})`);
  return Boolean(condition);
}
