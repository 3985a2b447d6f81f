import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ServerDatabase } from './database.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The admin key every spawned server is started with. */
export const SPAWNED_ADMIN_KEY = 'oak_spawned-admin-key-for-tests';

/** A server running as a process of its own, for tests that signal or kill it. */
export interface SpawnedServer {
  httpUrl: string;
  grpcUrl: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Log lines seen so far (pino JSON). */
  logs: string[];
  /** Kills the process if it still runs (its database stays, for the next process). */
  cleanUp(): Promise<void>;
}

/**
 * Starts `src/main.ts` in a child process (node with the tsx loader, so that signals reach the server
 * itself) on free loopback ports; resolves once it listens.
 */
export async function spawnServer(database: ServerDatabase, env: Record<string, string> = {}): Promise<SpawnedServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      GRPC_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // Load tests place hundreds of orders with one key from one address.
      RATE_LIMIT_ENABLED: 'false',
      SEED_DEMO: 'false',
      // Ten times the default placement budget (within the default 30 s lease), as `startTestServer` has it.
      REQUEST_TIMEOUT_MS: '20000',
      ADMIN_API_KEY: SPAWNED_ADMIN_KEY,
      ...database.env,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => logs.push(line));
  const listening = new Promise<{ http: string; grpc: string }>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      logs.push(line);
      if (line.includes('order api listening')) resolve(JSON.parse(line) as { http: string; grpc: string });
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${logs.join('\n')}`)));
  });
  const { http, grpc } = await listening;
  return {
    httpUrl: http,
    grpcUrl: grpc,
    child,
    exited,
    logs,
    async cleanUp() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
