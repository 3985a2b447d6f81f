#!/usr/bin/env node
/**
 * Starts `node --import ./dist/src/observability/tracing-register.js dist/src/main.js` in a directory (default: this checkout) as the container's entrypoint
 * does, on free ports and a fresh embedded database, then checks liveness, readiness and one REST and
 * one GraphQL call, runs the image's HEALTHCHECK command, and stops it with SIGTERM: it must drain and
 * exit 0. Plain Node with no dependencies, so it runs in a `--omit=dev` install. With `--npm-start` it
 * starts the server with `npm start` instead (the buildpack sequence: build, prune the dev dependencies,
 * `npm start`), and sends SIGTERM to its process group, as a service manager does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const npmStart = process.argv.includes('--npm-start');
const dir = path.resolve(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? '.');
const dataDir = mkdtempSync(path.join(tmpdir(), 'order-api-smoke-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const { DATABASE_URL: _url, ADMIN_API_KEY: _key, ...env } = process.env;
// The image's entrypoint: the tracing hook's --import entry, then the server.
const entrypoint = ['--import', './dist/src/observability/tracing-register.js', 'dist/src/main.js'];
const server = spawn(npmStart ? 'npm' : process.execPath, npmStart ? ['start'] : entrypoint, {
  cwd: dir,
  env: { ...env, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', GRPC_PORT: '0', DATA_DIR: dataDir },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: npmStart,
});
const stop = (signal) => {
  try {
    if (npmStart) process.kill(-server.pid, signal);
    else server.kill(signal);
  } catch {
    // Already gone.
  }
};
let out = '';
const fail = (message) => {
  console.error(`smoke start failed: ${message}\n${out}`);
  stop('SIGKILL');
  process.exit(1);
};
const timer = setTimeout(() => fail('not listening within 120 s'), 120_000);
// npm, signalled with its group, may re-raise the SIGTERM it received after the server drained.
const exited = new Promise((resolve) =>
  server.on('exit', (code, signal) => resolve(npmStart && signal === 'SIGTERM' ? 0 : code)),
);
server.on('exit', (code) => {
  if (!server.checked) fail(`the server exited (${code}) before it was listening`);
});
server.stdout.on('data', async (chunk) => {
  out += chunk;
  const line = out.split('\n').find((l) => l.includes('"order api listening"'));
  if (!line || server.checked) return;
  server.checked = true;
  clearTimeout(timer);
  const { http } = JSON.parse(line);
  for (const [url, init] of [
    [`${http}/health/live`],
    [`${http}/health/ready`],
    [`${http}/v1/products?size=1`],
    [
      `${http}/graphql`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ products(first: 1) { nodes { sku } } }"}',
      },
    ],
  ]) {
    const response = await fetch(url, init).catch((error) => fail(`${url}: ${error.message}`));
    if (response.status !== 200) fail(`${url} answered ${response.status}: ${await response.text()}`);
  }
  // The Dockerfile's HEALTHCHECK command, word for word apart from the port.
  const port = new URL(http).port;
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))",
    ],
    { env: { ...env, PORT: port } },
  );
  if (probe.status !== 0) fail(`the HEALTHCHECK command exited ${probe.status}`);
  stop('SIGTERM');
  const code = await exited;
  if (code !== 0 || !out.includes('"stopped"')) fail(`SIGTERM: exit code ${code}, no "stopped" log line`);
  const how = npmStart ? 'npm start' : 'node --import …/tracing-register.js dist/src/main.js';
  console.log(`smoke start (${how}) ok in ${dir}: live, ready, REST, GraphQL, HEALTHCHECK, SIGTERM drained`);
});
