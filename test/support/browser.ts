/**
 * Chromium for the browser tests (headless, from the system; `.ci/run` installs it when missing). Without
 * it a browser test is skipped and says so (`SKIPPED: … (install chromium …)`), so `npm test` passes on a
 * machine with Node only; in CI (`CI=true`) a missing browser is an error.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { requires } from './requires.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'install chromium: apt-get install -y chromium, or set CHROMIUM_PATH';

/** Whether Chromium is there for the test named `what`; throws in CI when it is not. */
export function hasChromium(what: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found && process.env.CI === 'true') throw new Error(`no Chromium at ${CHROMIUM} in CI (CI=true): ${INSTALL}`);
  return requires(found, `${what} in Chromium, no Chromium at ${CHROMIUM}`, INSTALL);
}

/** Starts headless Chromium with the given extra arguments. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args],
  });
}

/** Collects what goes wrong on a page: console errors, page errors, failed requests and answers of 400 or more. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
}
