// The admin lists of the retirement machinery (the brownout schedule, the deprecation report, an item's
// callers and its notices) page as every list does: the envelope, `size`, `nextCursor` absent on the last
// page, `withTotal`, `sort`, and cursors bound to the filters and the sort. Through the real server of a
// checkout that deprecates items (brownouts need one), every answer checked against that contract.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { RunningServer } from '../../src/main.js';
import type { ProblemBody } from '../support/client.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';

const ADMIN_KEY = 'admin-lists-admin-key-0123456789';
const fixture = deprecationFixture();
const fixtureContract = path.join(fixture.root, 'contracts/openapi.yaml');
const database = serverDatabase('admin-lists');
const DAY = 86_400_000;
const clock = new Date('2026-12-01T09:00:00.000Z');

let server: RunningServer;
const customerKeyIds: number[] = [];
const windows: Array<{ id: number; item: string; startsAt: string }> = [];

type Envelope = { items: Array<Record<string, any>>; nextCursor?: string; hasNext: boolean; totalCount?: number };

/** A GET as the admin, checked against the fixture's contract. */
async function get(pathWithQuery: string, key = ADMIN_KEY) {
  const seen = await see(
    await fetch(new URL(pathWithQuery, server.httpUrl), { headers: { authorization: `Bearer ${key}` } }),
  );
  const body = await expectContract('GET', pathWithQuery, seen, fixtureContract);
  return { status: seen.status, body: body as Envelope & ProblemBody };
}

/** Every page of a list, following `nextCursor`; each page's envelope is checked on the way. */
async function pages(listPath: string, query: Record<string, string>): Promise<Envelope[]> {
  const seen: Envelope[] = [];
  let cursor: string | undefined;
  do {
    const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const { status, body } = await get(`${listPath}?${search}`);
    expect(status, `${listPath}?${search}`).toBe(200);
    // `hasNext` and `nextCursor` go together: the last page has neither.
    expect(body.hasNext, 'hasNext and nextCursor agree').toBe(body.nextCursor !== undefined);
    seen.push(body);
    cursor = body.nextCursor;
    expect(seen.length, 'pages end').toBeLessThan(20);
  } while (cursor);
  return seen;
}

const sizes = (list: Envelope[]) => list.map((page) => page.items.length);
const flat = (list: Envelope[]) => list.flatMap((page) => page.items);

beforeAll(async () => {
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    now: () => clock,
    env: { USAGE_FLUSH_MS: '600000' },
  });
  const { core } = server;
  const admin: Caller = await core.apiKeys.authenticate(ADMIN_KEY);
  // Three customers who each read their orders once: three callers of the watched `rest.Order.amount`.
  for (const name of ['ann', 'bo', 'cy']) {
    const user = (await core.users.create(admin, { name, email: `${name}@lists.example.com` })).result;
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
    customerKeyIds.push(issued.apiKey.id);
    clock.setTime(clock.getTime() + 60_000);
    expect((await get('/v1/orders', issued.secret)).status).toBe(200);
  }
  await server.flushUsage();
  // Five windows, two items, scheduled out of start order.
  const schedule = [
    ['rest.listProducts', 12],
    ['graphql.Order.note', 9],
    ['rest.listProducts', 10],
    ['graphql.Order.note', 14],
    ['rest.listProducts', 8],
  ] as const;
  for (const [item, days] of schedule) {
    const startsAt = new Date(clock.getTime() + days * DAY);
    const window = await core.brownouts.schedule(admin, {
      item,
      startsAt,
      endsAt: new Date(startsAt.getTime() + 15 * 60_000),
    });
    windows.push({ id: window.id, item, startsAt: startsAt.toISOString() });
  }
});

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
  fixture.remove();
});

describe('the brownout schedule', () => {
  it('pages in the envelope, earliest start first, with no nextCursor on the last page', async () => {
    const list = await pages('/v1/brownouts', { size: '2' });
    expect(sizes(list)).toEqual([2, 2, 1]);
    const byStart = [...windows].sort((a, b) => a.startsAt.localeCompare(b.startsAt));
    expect(flat(list).map((window) => window.id)).toEqual(byStart.map((window) => window.id));
    expect(list.at(-1)).not.toHaveProperty('nextCursor');
  });

  it('sorts by the documented keys, counts with withTotal, and filters by item', async () => {
    const latestFirst = flat(await pages('/v1/brownouts', { size: '3', sort: '-startsAt' }));
    expect(latestFirst.map((window) => window.startsAt)).toEqual(
      windows
        .map((window) => window.startsAt)
        .sort()
        .reverse(),
    );
    const counted = await get('/v1/brownouts?size=1&withTotal=true');
    expect(counted.body).toMatchObject({ totalCount: 5, hasNext: true });
    const products = await pages('/v1/brownouts', { item: 'rest.listProducts', size: '2' });
    expect(sizes(products)).toEqual([2, 1]);
    expect(flat(products).every((window) => window.item === 'rest.listProducts')).toBe(true);
    expect((await get('/v1/brownouts?sort=item')).body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('binds a cursor to the item filter and the sort it was made with', async () => {
    const first = await get('/v1/brownouts?item=rest.listProducts&size=1');
    const cursor = encodeURIComponent(first.body.nextCursor as string);
    expect((await get(`/v1/brownouts?item=rest.listProducts&size=1&cursor=${cursor}`)).status).toBe(200);
    for (const other of ['item=graphql.Order.note', '', 'item=rest.listProducts&sort=-startsAt']) {
      const reused = await get(`/v1/brownouts?${other}&size=1&cursor=${cursor}`);
      expect(reused, other).toMatchObject({ status: 400, body: { code: 'INVALID_CURSOR' } });
    }
  });

  it('cuts a size above 100 to 100 and refuses one below 1', async () => {
    expect((await get('/v1/brownouts?size=500')).body.items).toHaveLength(5);
    expect((await get('/v1/brownouts?size=0')).status).toBe(400);
  });
});

describe('the deprecation report', () => {
  it('pages through every registry item by id', async () => {
    const list = await pages('/v1/deprecations', { size: '2', withTotal: 'true' });
    const ids = fixture.registry.items.map((item) => item.id).sort();
    expect(flat(list).map((entry) => entry.id)).toEqual(ids);
    expect(list.every((page) => page.totalCount === ids.length)).toBe(true);
    expect(
      sizes(list)
        .slice(0, -1)
        .every((size) => size === 2),
    ).toBe(true);
    const descending = flat(await pages('/v1/deprecations', { size: '3', sort: '-id' }));
    expect(descending.map((entry) => entry.id)).toEqual([...ids].reverse());
  });
});

describe("an item's callers", () => {
  const callers = '/v1/deprecations/rest.Order.amount/callers';

  it('pages in the envelope, most recent use first', async () => {
    const list = await pages(callers, { size: '2' });
    expect(sizes(list)).toEqual([2, 1]);
    expect(flat(list).map((caller) => caller.apiKeyId)).toEqual([...customerKeyIds].reverse());
    const byKey = flat(await pages(callers, { size: '1', sort: 'apiKeyId' }));
    expect(byKey.map((caller) => caller.apiKeyId)).toEqual(customerKeyIds);
    expect((await get(`${callers}?withTotal=true`)).body).toMatchObject({ totalCount: 3, hasNext: false });
  });

  it('binds a cursor to the item and the days it was made with', async () => {
    const first = await get(`${callers}?size=1`);
    const cursor = encodeURIComponent(first.body.nextCursor as string);
    expect((await get(`${callers}?size=1&cursor=${cursor}`)).status).toBe(200);
    for (const other of [`${callers}?days=7`, '/v1/deprecations/graphql.Order.amount/callers?']) {
      const reused = await get(`${other}&size=1&cursor=${cursor}`);
      expect(reused, other).toMatchObject({ status: 400, body: { code: 'INVALID_CURSOR' } });
    }
  });
});

describe("an item's notices", () => {
  it('answers the recorded notices in the envelope, and pages through them newest first', async () => {
    const notices = '/v1/deprecations/rest.Order.amount/notices';
    const recorded: Envelope[] = [];
    for (const [index, apiKeyId] of customerKeyIds.entries()) {
      const url = `${server.httpUrl}${notices}`;
      const body = JSON.stringify({
        apiKeyIds: [apiKeyId],
        channel: 'email',
        notifiedAt: new Date(clock.getTime() + index * 60_000).toISOString(),
      });
      const seen = await see(
        await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
          body,
        }),
      );
      expect(seen.status).toBe(201);
      recorded.push((await expectContract('POST', url, seen, fixtureContract)) as Envelope);
    }
    expect(recorded.map((answer) => answer.items.map((notice) => notice.apiKeyId))).toEqual(
      customerKeyIds.map((id) => [id]),
    );
    expect(recorded.every((answer) => answer.hasNext === false && !('nextCursor' in answer))).toBe(true);

    const list = await pages(notices, { size: '2' });
    expect(sizes(list)).toEqual([2, 1]);
    expect(flat(list).map((notice) => notice.apiKeyId)).toEqual([...customerKeyIds].reverse());
    const other = await get('/v1/deprecations/graphql.Order.amount/notices');
    expect(other.body).toEqual({ items: [], hasNext: false });
    const cursor = encodeURIComponent(list[0]?.nextCursor as string);
    const reused = await get(`/v1/deprecations/graphql.Order.amount/notices?size=2&cursor=${cursor}`);
    expect(reused).toMatchObject({ status: 400, body: { code: 'INVALID_CURSOR' } });
  });
});
