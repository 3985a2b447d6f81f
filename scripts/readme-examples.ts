/**
 * Runs every shell command of README.md's ```sh blocks, as written, against a fresh `npm start`, in one
 * bash session (so `KEY=…` carries over). `curl` fails on an HTTP error (a function adds
 * `--fail-with-body`); `npx buf curl` fails on a gRPC error by itself. Exit 0 only when all pass.
 *
 * Not run, and said so: the install/start line (the runner itself starts the server with `npm start`
 * after CI's `npm ci`), the test-suite commands (CI runs them) and `docker` (no engine in CI; the image's
 * steps are proven by scripts/production-layout.sh and scripts/smoke-start.mjs).
 * When ./data exists (not a fresh clone) or port 8080/50051 is taken, the server gets a fresh directory or
 * free ports, and the commands' `data/`, `localhost:8080` and `127.0.0.1:50051` are rewritten to match.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The commands of every ```sh block, continuation lines joined, comment-only lines dropped. */
function commands(): string[] {
  const found: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = (block[1] as string).replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) if (line.trim() && !line.trim().startsWith('#')) found.push(line.trim());
  }
  return found;
}

const notRun: Array<[RegExp, string]> = [
  [/^npm ci && npm start/, 'the runner starts the server itself with `npm start`'],
  [/(^|\s)npm test\b/, 'the test suite: CI runs it'],
  [/^docker /, 'no container engine here; CI proves the image steps without one'],
];

const portFree = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
      .once('error', () => resolve(false))
      .listen(port, host, () => probe.close(() => resolve(true)));
  });
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function main() {
  const httpPort = (await portFree(8080, '0.0.0.0')) ? 8080 : await freePort();
  const grpcPort = (await portFree(50051, '127.0.0.1')) ? 50051 : await freePort();
  const dataDir = existsSync(path.join(root, 'data')) ? mkdtempSync(path.join(tmpdir(), 'readme-data-')) : 'data';
  const rewrite = (command: string) =>
    command
      .replaceAll('localhost:8080', `localhost:${httpPort}`)
      .replaceAll('127.0.0.1:50051', `127.0.0.1:${grpcPort}`)
      .replaceAll(' data/', ` ${dataDir}/`);
  if (httpPort !== 8080 || grpcPort !== 50051 || dataDir !== 'data') {
    console.log(`note: ports ${httpPort}/${grpcPort}, data in ${dataDir} (the defaults are taken here)`);
  }

  const { DATABASE_URL: _url, ADMIN_API_KEY: _key, ...env } = process.env;
  const server = spawn('npm', ['start'], {
    cwd: root,
    env: { ...env, PORT: String(httpPort), GRPC_PORT: String(grpcPort), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  server.stdout.on('data', (chunk) => (log += chunk));
  const deadline = Date.now() + 180_000;
  while (!log.includes('"order api listening"')) {
    if (server.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const script = ['set -eo pipefail', 'curl() { command curl --fail-with-body -sS "$@"; }'];
  let run = 0;
  for (const command of commands()) {
    const skip = notRun.find(([pattern]) => pattern.test(command));
    if (skip) {
      console.log(`not run: ${command}\n         (${skip[1]})`);
      continue;
    }
    run++;
    // Printed single-quoted, so that nothing in it (a key, a `$(…)`) is expanded or run twice.
    const quoted = `'${command.replaceAll("'", "'\\''")}'`;
    script.push(`printf '\\n$ %s\\n' ${quoted}`, rewrite(command), 'echo');
  }
  const scriptDir = mkdtempSync(path.join(tmpdir(), 'readme-'));
  const file = path.join(scriptDir, 'commands.sh');
  writeFileSync(file, `${script.join('\n')}\n`);
  const result = spawnSync('bash', [file], { cwd: root, stdio: 'inherit', timeout: 300_000 });
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  // A fresh clone is left as it was found, and so is the temporary directory.
  rmSync(scriptDir, { recursive: true, force: true });
  rmSync(dataDir === 'data' ? path.join(root, 'data') : dataDir, { recursive: true, force: true });
  if (result.status !== 0) {
    console.error(`\nREADME commands failed (exit ${result.status}); the last one printed is the one that failed.`);
    process.exit(1);
  }
  console.log(`\nall ${run} README commands passed against a fresh server`);
}

await main();
