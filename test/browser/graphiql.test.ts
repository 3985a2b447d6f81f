import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { hasChromium, launchChromium, watchProblems } from '../support/browser.js';
import { startTestServer } from '../support/server.js';

// GraphiQL in a real browser (Chromium, headless): the static page under its Content-Security-Policy runs
// its default query against this server, its editor workers load from this origin, and nothing is refused.
const chromiumHere = hasChromium('GraphiQL');

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumHere) return;
  server = await startTestServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!chromiumHere)('GraphiQL in Chromium', { timeout: 90_000 }, () => {
  it('runs its default query under the page policy, with no page errors and every request to this origin', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const calls: string[] = [];
    page.on('request', (request) => calls.push(request.url()));
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));

    const answer = await page.goto(`${server.httpUrl}/graphql`);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.graphiql-execute-button').click();
    await expect
      .poll(() => page.locator('.graphiql-response').textContent(), { timeout: 30_000 })
      .toContain('"products"');

    expect(problems).toEqual([]);
    expect(calls.filter((url) => !url.startsWith(server.httpUrl))).toEqual([]);
    expect(calls.some((url) => new URL(url).pathname === '/graphql')).toBe(true);
    // Monaco's workers run from their files here, not from blobs the policy would have to allow.
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.filter((url) => !url.startsWith(`${server.httpUrl}/graphql/graphiql/`))).toEqual([]);
    await page.close();
  });
});
