import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { hasChromium, launchChromium, watchProblems } from '../support/browser.js';
import { startTestServer } from '../support/server.js';

// The reference page in a real browser (Chromium, headless; .ci/run installs it when missing): "Try it
// out" on GET /v1/products from two origins — the address the server printed, and another host name
// mapped to the same socket, as a reverse proxy or a port-forward would present it.
const OTHER_HOST = 'orders.example.test';
const chromiumHere = hasChromium('/docs');

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumHere) return;
  server = await startTestServer();
  browser = await launchChromium([`--host-resolver-rules=MAP ${OTHER_HOST} 127.0.0.1`]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!chromiumHere)('/docs in Chromium', { timeout: 90_000 }, () => {
  for (const origin of ['printed', 'other host'] as const) {
    it(`runs "Try it out" on GET /v1/products from the ${origin} origin with 200 and no page errors`, async () => {
      const base = new URL(server.httpUrl);
      if (origin === 'other host') base.hostname = OTHER_HOST;
      const page = await browser.newPage();
      const problems = watchProblems(page);
      const calls: string[] = [];
      page.on('request', (request) => calls.push(request.url()));

      await page.goto(new URL('/docs', base).href);
      const operation = page.locator('#operations-Products-listProducts');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table .response .response-col_status').first();
      await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe('200');

      const sent = calls.find((url) => new URL(url).pathname === '/v1/products');
      expect(sent && new URL(sent).origin).toBe(base.origin);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
