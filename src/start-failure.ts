/** Network and server answers that mean "the database in DATABASE_URL cannot be used as configured". */
const unreachable = new Map<string, string>(
  Object.entries({
    ECONNREFUSED: 'nothing accepts connections at that host and port',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name does not resolve (DNS did not answer)',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host cannot be reached',
    ECONNRESET: 'the server closed the connection',
    '28P01': 'the server refused the user name or password',
    '28000': 'the server refused the connection for this user',
    '3D000': 'the database named in the URL does not exist',
  }),
);

/** The driver's code of a failure, looked for along its `cause` chain (the store wraps lost connections). */
function driverCodeOf(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && unreachable.has(code)) return code;
  }
  return undefined;
}

/**
 * The message a failed start prints: for a database that cannot be reached it names `DATABASE_URL` (with
 * the password masked) and what to check, rather than a bare `ECONNREFUSED`.
 */
export function describeStartFailure(error: unknown, databaseUrl: string | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = driverCodeOf(error);
  const reason = code === undefined ? undefined : unreachable.get(code);
  if (!databaseUrl || !reason) return message;
  const url = new URL(databaseUrl);
  if (url.password) url.password = '***';
  return [
    `cannot use the PostgreSQL server in DATABASE_URL (${url.href}): ${reason} (${code}).`,
    'Check that the server is running and reachable from here, and the host, port, user, password and',
    'database name in DATABASE_URL; unset DATABASE_URL to use the embedded database in DATA_DIR instead.',
  ].join('\n');
}
