import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** The CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  // The fields after the command name (in parentheses); utime and stime are the 12th and 13th of them.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** Resolves once `url` answers 200, or rejects after `timeoutMs` or when `child` exits first. */
export async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the process exited first`);
    const ready = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** One server process of the topology: `node dist/src/main.js` on fixed ports, restartable. */
export interface Instance {
  name: string;
  httpUrl: string;
  httpPort: number;
  grpcPort: number;
  child: ChildProcess;
  /** Starts the process (again) and waits until `/health/ready` answers. */
  start(): Promise<void>;
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal: NodeJS.Signals): Promise<number | string>;
}

/** An instance of the built server of the project at `root`, with `env`, its output appended to `logFile`. */
export function createInstance(
  root: string,
  name: string,
  ports: { httpPort: number; grpcPort: number },
  env: Record<string, string>,
  logFile: string,
): Instance {
  const log = createWriteStream(logFile, { flags: 'a' });
  const instance: Instance = {
    name,
    ...ports,
    httpUrl: `http://127.0.0.1:${ports.httpPort}`,
    child: undefined as unknown as ChildProcess,
    async start() {
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: root,
        env: {
          ...process.env,
          ...env,
          HOST: '127.0.0.1',
          PORT: String(ports.httpPort),
          GRPC_HOST: '127.0.0.1',
          GRPC_PORT: String(ports.grpcPort),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
      instance.child = child;
      await waitReady(`${instance.httpUrl}/health/ready`, child);
    },
    async stop(signal) {
      const { child } = instance;
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode ?? -1;
      const exited = new Promise<number | string>((resolve) =>
        child.once('exit', (code, how) => resolve(code ?? how ?? -1)),
      );
      child.kill(signal);
      return exited;
    },
  };
  return instance;
}
