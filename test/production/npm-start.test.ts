import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedDataDir } from '../support/database.js';
import { alive, type StartedProcess, startProcess } from '../support/process.js';

// `npm start` exactly as the README says, then SIGTERM the way an operator or a service manager sends
// it: to the server process itself, to npm, or to the whole process group. Each time the server drains
// ("draining", then "stopped"), stops answering and exits 0, and npm with it.
const root = path.resolve(import.meta.dirname, '../..');
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const remove of cleanups) remove();
});

/** This environment without a database URL or admin key of its own: a fresh embedded database. */
function embeddedEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, ADMIN_API_KEY: _key, ...env } = process.env;
  return env;
}

async function npmStart(): Promise<{ started: StartedProcess; httpUrl: string; serverPid: number; dataDir: string }> {
  // The suite's migrated, empty template (no keys, no demo data yet): the start is still a first start,
  // without the cluster's creation and migrations (about 5 s of CPU each); readme:check and the smoke
  // starts in CI start on an empty directory.
  const { dir: dataDir, remove } = embeddedDataDir('order-api-start');
  cleanups.push(remove);
  const started = startProcess('npm', ['start'], {
    cwd: root,
    env: { ...embeddedEnv(), PORT: '0', HOST: '127.0.0.1', GRPC_PORT: '0', DATA_DIR: dataDir },
  });
  const listening = await started.waitForLog((line) => line.msg === 'order api listening');
  const httpUrl = String(listening.http);
  expect((await fetch(`${httpUrl}/health/ready`)).status).toBe(200);
  return { started, httpUrl, serverPid: Number(listening.pid), dataDir };
}

async function expectDrainedAndGone(run: Awaited<ReturnType<typeof npmStart>>) {
  // npm exits 0 when the server did, or re-raises the SIGTERM it received itself (group signal).
  const { code, signal } = await run.started.exited;
  expect(code === 0 || signal === 'SIGTERM', `npm exited with ${code ?? signal}`).toBe(true);
  const messages = run.started.logLines().map((line) => line.msg);
  expect(messages).toContain('draining');
  expect(messages.at(-1)).toBe('stopped');
  expect(alive(run.serverPid)).toBe(false);
  await expect(fetch(`${run.httpUrl}/health/live`)).rejects.toThrow();
}

describe('npm start', { timeout: 180_000 }, () => {
  it('runs the compiled server as node itself, and SIGTERM to that process drains it and ends npm too', async () => {
    const run = await npmStart();
    // The process npm started is the server (node running dist/), not a shell or a tsx wrapper.
    expect(run.serverPid).not.toBe(run.started.child.pid);
    const command = await readFile(`/proc/${run.serverPid}/cmdline`, 'utf8');
    expect(command.split('\0').slice(0, 4)).toEqual([
      expect.stringMatching(/node$/),
      '--import',
      './dist/src/observability/tracing-register.js',
      'dist/src/main.js',
    ]);
    const parent = (await readFile(`/proc/${run.serverPid}/stat`, 'utf8')).split(' ')[3];
    expect(Number(parent)).toBe(run.started.child.pid);
    process.kill(run.serverPid, 'SIGTERM');
    await expectDrainedAndGone(run);
  });

  it('drains when SIGTERM goes to npm or to the whole process group', async () => {
    const toNpm = await npmStart();
    process.kill(toNpm.started.child.pid as number, 'SIGTERM');
    await expectDrainedAndGone(toNpm);

    const toGroup = await npmStart();
    process.kill(-(toGroup.started.child.pid as number), 'SIGTERM');
    await expectDrainedAndGone(toGroup);
  });

  it('writes first-start keys to an owner-only file and never to the log stream', async () => {
    const run = await npmStart();
    const file = path.join(run.dataDir, 'first-start-keys.env');
    const keys = await readFile(file, 'utf8');
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const admin = /^ADMIN_KEY=(oak_\S+)$/m.exec(keys)?.[1];
    const customer = /^DEMO_CUSTOMER_KEY=(oak_\S+)$/m.exec(keys)?.[1];
    expect(admin).toBeDefined();
    expect(customer).toBeDefined();
    const me = await fetch(`${run.httpUrl}/v1/users/me`, { headers: { authorization: `Bearer ${admin}` } });
    expect(me.status).toBe(200);
    expect(run.started.output()).not.toContain(admin);
    expect(run.started.output()).not.toContain(customer);
    expect(run.started.logLines().find((line) => line.file === file)).toBeDefined();
    process.kill(run.serverPid, 'SIGTERM');
    await expectDrainedAndGone(run);
  });

  it('names DATABASE_URL, without its password, when the database cannot be reached', async () => {
    const started = startProcess('node', ['dist/src/main.js'], {
      cwd: root,
      env: { ...process.env, PORT: '0', GRPC_PORT: '0', DATABASE_URL: 'postgres://app:hunter22@127.0.0.1:1/orders' },
    });
    const { code } = await started.exited;
    expect(code).toBe(1);
    expect(started.output()).toContain('DATABASE_URL (postgres://app:***@127.0.0.1:1/orders)');
    expect(started.output()).toContain('nothing accepts connections');
    expect(started.output()).not.toContain('hunter22');
  });
});
