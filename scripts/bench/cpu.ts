import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type pg from 'pg';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** The CPU time (user + system) a process has used so far, in seconds, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the command name, which is in parentheses; utime and stime are the 12th and 13th of them.
  const fields = stat.split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** The `application_name` of the bench's own connections. */
export const BENCH_APPLICATION = 'order-api-bench';

/**
 * The server processes (backends) of the database `pool` connects to, other than those of connections
 * named `BENCH_APPLICATION` (the bench's own), when the server runs on this machine (their /proc entries
 * exist): whose CPU time is the database's share of a load. Empty for a remote server.
 */
export async function databaseBackends(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
        AND application_name IS DISTINCT FROM $1`,
    [BENCH_APPLICATION],
  );
  return rows.map((row) => row.pid).filter((pid) => existsSync(`/proc/${pid}/stat`));
}

/** How often the database's backends are listed while a tally runs: connections come and go. */
const SAMPLE_MS = 200;

/**
 * CPU seconds of the server and receiver processes and of the database's backends (./databaseBackends),
 * from now on; `since` gives what each used. A backend seen first during the tally counts from zero (it
 * started during it), one that ended counts up to its last sample (at most `SAMPLE_MS` of it are lost).
 */
export async function cpuTally(processes: Record<string, number>, pool: pg.Pool) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = async (starting: boolean) => {
    for (const pid of await databaseBackends(pool)) {
      const seconds = cpuSeconds(pid);
      if (seconds === 0) continue;
      if (!first.has(pid)) first.set(pid, starting ? seconds : 0);
      last.set(pid, seconds);
    }
  };
  await sample(true);
  const start = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(false)).catch(() => undefined);
  }, SAMPLE_MS);
  return {
    /** CPU seconds each process, and the database's backends together, used since the tally started. */
    async since(): Promise<Record<string, number>> {
      clearInterval(timer);
      await sampling;
      await sample(false);
      const used = Object.fromEntries(
        Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid) - (start[name] ?? 0)]),
      );
      let database = 0;
      for (const [pid, seconds] of last) database += seconds - (first.get(pid) ?? 0);
      return { ...used, database };
    },
  };
}
