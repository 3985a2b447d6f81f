import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { hasChromium, launchChromium, watchProblems } from '../support/browser.js';
import { serverDatabase } from '../support/database.js';
import { deprecationFixture, SUNSET } from '../support/deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';

// The usage page in a real browser (Chromium, headless, as the /docs test): a server over the fixture
// contracts (`listProducts` and `ProductRating.count` deprecated, `Order.amount` watched), usage seeded by
// two customers' keys, then the page is given a key and must draw exactly that key's items — and, given
// the admin key, every item of every caller.
const ADMIN_KEY = 'usage-page-admin-key-0123456789';
const DAY = 86_400_000;

const chromiumHere = hasChromium('/docs/usage');

const fixture = deprecationFixture();
const database = serverDatabase('usage-page');
let server: RunningServer;
let browser: Browser;
const keys = { ann: { secret: '', id: 0 }, bo: { secret: '', id: 0 } };
let window = '';

beforeAll(async () => {
  if (!chromiumHere) return;
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    env: { USAGE_FLUSH_MS: '600000' },
  });
  const { core } = server;
  const admin: Caller = await core.apiKeys.authenticate(ADMIN_KEY);
  const product = (
    await core.products.create(admin, { name: 'Beans', sku: 'BEAN-PAGE', price: minor(1200), stock: 50 })
  ).result;
  for (const name of ['ann', 'bo'] as const) {
    const user = (
      await core.users.create(admin, {
        name,
        email: `${name}@usage.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
    keys[name] = { secret: issued.secret, id: issued.apiKey.id };
  }
  const order = (
    await core.orders.place(await core.apiKeys.authenticate(keys.ann.secret), {
      items: [{ productId: product.id, quantity: 1 }],
    })
  ).result;
  const get = async (key: string, path: string) => {
    const response = await fetch(`${server.httpUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
  };
  // ann: the deprecated operation 3 times, the watched Order.amount once and its replacement once;
  // bo: the deprecated response property twice.
  for (let i = 0; i < 3; i += 1) await get(keys.ann.secret, '/v1/products');
  await get(keys.ann.secret, `/v1/orders/${order.id}`);
  await get(keys.ann.secret, `/v1/orders/${order.id}?include=amountDetail`);
  for (let i = 0; i < 2; i += 1) await get(keys.bo.secret, `/v1/products/${product.id}/rating`);
  await server.flushUsage();
  // A brownout window of listProducts, 8 days ahead (the notice is 7).
  const startsAt = new Date(Date.now() + 8 * DAY).toISOString();
  const endsAt = new Date(Date.parse(startsAt) + 30 * 60_000).toISOString();
  await core.brownouts.schedule(admin, {
    item: 'rest.listProducts',
    startsAt: new Date(startsAt),
    endsAt: new Date(endsAt),
  });
  window = `${startsAt}/${endsAt}`;

  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await database.remove();
  fixture.remove();
});

/** Opens the page, fails on any page error or failed request, and authorizes with `key`. */
async function openWith(key: string, scope: 'me' | 'key' | 'all', keyId?: number) {
  const page = await browser.newPage();
  const problems = watchProblems(page);
  const origins = new Set<string>();
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  await page.goto(new URL('/docs/usage', server.httpUrl).href);
  await page.locator('input[name=key]').fill(key);
  await page.locator('select[name=scope]').selectOption(scope);
  if (keyId !== undefined) await page.locator('input[name=keyId]').fill(String(keyId));
  await page.getByRole('button', { name: 'Authorize' }).click();
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/items\.$|used/);
  return { page, problems, origins };
}

/** What the page drew: per item, each series' total and values, the brownout bands and the sunset mark. */
function drawn(page: Page) {
  return page.locator('figure[data-item]').evaluateAll((figures) =>
    figures.map((figure) => {
      const series = (name: string) => figure.querySelector(`polyline[data-series="${name}"]`);
      return {
        item: figure.getAttribute('data-item'),
        uses: Number(series('uses')?.getAttribute('data-total')),
        replacementUses: Number(series('replacementUses')?.getAttribute('data-total')),
        points: series('uses')?.getAttribute('points')?.split(' ').length,
        brownouts: [...figure.querySelectorAll('rect.brownout')].map((rect) => rect.getAttribute('data-brownout')),
        sunset: figure.querySelector('line.sunset')?.getAttribute('data-sunset') ?? null,
      };
    }),
  );
}

describe.skipIf(!chromiumHere)('/docs/usage in Chromium', { timeout: 120_000 }, () => {
  it("draws exactly the key's own items, with its counts, brownout window and sunset", async () => {
    const { page, problems, origins } = await openWith(keys.ann.secret, 'me');
    expect(await drawn(page)).toEqual([
      { item: 'rest.Order.amount', uses: 1, replacementUses: 1, points: 30, brownouts: [], sunset: null },
      { item: 'rest.listProducts', uses: 3, replacementUses: 0, points: 30, brownouts: [window], sunset: SUNSET },
    ]);
    expect(problems).toEqual([]);
    // Everything the page loads comes from this server: no CDN.
    expect([...origins]).toEqual([new URL(server.httpUrl).origin]);
    await page.close();
  });

  it('draws another key by id for an admin, and every item of every caller', async () => {
    const one = await openWith(ADMIN_KEY, 'key', keys.bo.id);
    expect((await drawn(one.page)).map(({ item, uses }) => [item, uses])).toEqual([['rest.ProductRating.count', 2]]);
    expect(one.problems).toEqual([]);
    await one.page.close();

    const all = await openWith(ADMIN_KEY, 'all');
    const items = await drawn(all.page);
    // Every registry item, in the report's order (by id, code point order).
    const ids = fixture.registry.items.map((item) => item.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(items.map((entry) => entry.item)).toEqual(ids);
    const totals = Object.fromEntries(items.map(({ item, uses, replacementUses }) => [item, [uses, replacementUses]]));
    expect(totals).toMatchObject({
      'rest.listProducts': [3, 0],
      'rest.ProductRating.count': [2, 0],
      'rest.Order.amount': [1, 1],
      'graphql.Order.note': [0, 0],
    });
    expect(items.find((entry) => entry.item === 'rest.listProducts')?.brownouts).toEqual([window]);
    expect(all.problems).toEqual([]);
    await all.page.close();
  });

  it("shows a customer's refusal of another user's key as the page's message, drawing nothing", async () => {
    const page = await browser.newPage();
    await page.goto(new URL('/docs/usage', server.httpUrl).href);
    await page.locator('input[name=key]').fill(keys.bo.secret);
    await page.locator('select[name=scope]').selectOption('key');
    await page.locator('input[name=keyId]').fill(String(keys.ann.id));
    await page.getByRole('button', { name: 'Authorize' }).click();
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
      .toContain('404 API_KEY_NOT_FOUND');
    expect(await page.locator('figure').count()).toBe(0);
    await page.close();
  });
});
