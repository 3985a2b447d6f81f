import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A server process started as an operator would, with its output collected line by line. */
export interface StartedProcess {
  child: ChildProcess;
  output: () => string;
  /** The pino lines of stdout, parsed. */
  logLines: () => Array<Record<string, unknown>>;
  /** Resolves with the first log line that `match` accepts (rejects after `timeoutMs`). */
  waitForLog: (
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ) => Promise<Record<string, unknown>>;
  /** Resolves once the process and every process sharing its output pipes have exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command` in its own process group (as a shell or a service manager does). */
export function startProcess(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // 'close', not 'exit': it waits for every holder of the output pipes, so a grandchild (the server that
  // npm started) has finished writing and exited too.
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const logLines = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const started: StartedProcess = {
    child,
    output: () => out,
    logLines,
    exited,
    async waitForLog(match, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const line = logLines().find(match);
        if (line) return line;
        if (child.exitCode !== null) throw new Error(`the process exited early:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no matching log line within ${timeoutMs} ms:\n${out}`);
    },
  };
  return started;
}

/** Whether a process id is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
