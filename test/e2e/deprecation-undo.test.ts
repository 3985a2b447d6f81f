import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';

// Undoing a deprecation on a real server (docs/decisions.md §7): windows are scheduled while the fixture
// deprecates `Order.note` (GraphQL) and `GET /v1/products` (REST); the next release takes `Order.note`
// back (watched again), and its first start cancels that item's window with a note, leaving the other.
const ADMIN_KEY = 'undo-admin-key-0123456789abcdef';
const fixture = deprecationFixture();
const fixtureContract = path.join(fixture.root, 'contracts/openapi.yaml');
const registryFile = path.join(fixture.root, 'generated/deprecations.json');
const database = serverDatabase('undo');
const clock = new Date('2026-12-01T09:00:00.000Z');
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
  fixture.remove();
});

async function start(): Promise<RunningServer> {
  return startFixtureServer({ projectRoot: fixture.root, database, adminKey: ADMIN_KEY, now: () => clock });
}

async function admin(running: RunningServer, method: string, pathname: string, body?: unknown) {
  const url = `${running.httpUrl}${pathname}`;
  const seen = await see(
    await fetch(url, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }),
  );
  return { status: seen.status, body: (await expectContract(method, url, seen, fixtureContract)) as any };
}

describe('undoing a deprecation', () => {
  it('cancels the windows of the item at the next start, with a note; other windows stay announced', async () => {
    server = await start();
    const window = { startsAt: '2026-12-10T10:00:00.000Z', endsAt: '2026-12-10T10:30:00.000Z' };
    const undone = await admin(server, 'POST', '/v1/brownouts', { item: 'graphql.Order.note', ...window });
    const kept = await admin(server, 'POST', '/v1/brownouts', { item: 'rest.listProducts', ...window });
    expect([undone.status, kept.status]).toEqual([201, 201]);
    expect(undone.body).toMatchObject({ state: 'announced', cancelNote: null });
    await server.close();
    server = undefined;

    // The next release: `Order.note` is no longer deprecated, and watched.
    const registry: DeprecationRegistry = JSON.parse(readFileSync(registryFile, 'utf8'));
    for (const item of registry.items.filter((entry) => entry.id === 'graphql.Order.note')) {
      Object.assign(item, { status: 'watched', deprecated: null, sunset: null });
    }
    writeFileSync(registryFile, JSON.stringify(registry));
    server = await start();

    expect(await admin(server, 'GET', `/v1/brownouts/${undone.body.id}`)).toMatchObject({
      status: 200,
      body: {
        state: 'cancelled',
        cancelledAt: clock.toISOString(),
        cancelNote: 'graphql.Order.note is no longer deprecated in the contract; window cancelled',
      },
    });
    expect(await admin(server, 'GET', `/v1/brownouts/${kept.body.id}`)).toMatchObject({
      status: 200,
      body: { state: 'announced', cancelledAt: null, cancelNote: null },
    });
    const published = await (await fetch(`${server.httpUrl}/contracts/deprecations`)).json();
    const brownoutsOf = (id: string) => published.items.find((item: { id: string }) => item.id === id)?.brownouts;
    expect(brownoutsOf('graphql.Order.note')).toEqual([]);
    expect(brownoutsOf('rest.listProducts')).toHaveLength(1);
  });
});
