import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConnectError, createClient as createConnectClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { Retirement } from '@order-api/contract-gate';
import { historyOf, releaseFromDirectory, runGate } from '@order-api/contract-gate';
import { createClient as createGraphqlClient } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { expectContract, see } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { DEPRECATED_ON, deprecationFixture, SUNSET } from '../support/deprecation-fixture.js';
import { withEvidenceKey } from '../support/evidence.js';
import { startFixtureServer } from '../support/server.js';

// Spec §9.2 rule 8 on a real server with a controllable clock: deprecate → measured callers → brownout
// announced → the window blocks each protocol and surfaces a caller nobody had measured → use falls to zero
// → export, signed by the server's evidence key → the gate passes the removal (enough notice in the release
// history, a held brownout, quiet days); and a caller that keeps calling → overdue → the removal refused.
// The fixture deprecates `Order.note` (GraphQL), `GET /v1/products` (REST) and `AdjustStockRequest.reason`
// (gRPC), sunset 2027-06-30.
const ADMIN_KEY = 'retirement-admin-key-0123456789';
const root = path.resolve(import.meta.dirname, '../..');
const fixture = deprecationFixture();
const fixtureContract = path.join(fixture.root, 'contracts/openapi.yaml');
const database = serverDatabase('retirement');
const databaseEnv = database.env;
const DAY = 86_400_000;

let clock = new Date('2026-12-01T09:00:00.000Z');
let server: RunningServer;
const keys: Record<'web' | 'ios', string> = { web: '', ios: '' };
let sku = '';

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
  const product = (
    await core.products.create(admin, { name: 'Beans', sku: 'BEAN-RETIRE', price: minor(1200), stock: 50 })
  ).result;
  sku = product.sku;
  for (const name of ['web', 'ios'] as const) {
    const user = (
      await core.users.create(admin, {
        name: `Shop ${name}`,
        email: `${name}@shops.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
    await core.orders.place(await core.apiKeys.authenticate(issued.secret), {
      items: [{ productId: product.id, quantity: 1 }],
    });
    keys[name] = issued.secret;
  }
});

afterAll(async () => {
  await server?.close().catch(() => undefined);
  await database.remove();
  fixture.remove();
});

const at = (iso: string) => {
  clock = new Date(iso);
};

function graphql(key: string, userAgent: string, query: string) {
  const client = createGraphqlClient({
    url: `${server.httpUrl}/graphql`,
    headers: { authorization: `Bearer ${key}`, 'user-agent': userAgent },
  });
  return new Promise<{ data?: any; errors?: any[]; extensions?: Record<string, any> }>((resolve, reject) => {
    let result = {};
    client.subscribe(
      { query },
      { next: (value) => (result = value), error: reject, complete: () => resolve(result as never) },
    );
  });
}

/** GET /v1/products as an anonymous catalog bot, checked against the fixture's contract. */
async function listProducts() {
  const url = `${server.httpUrl}/v1/products`;
  const seen = await see(await fetch(url, { headers: { 'user-agent': 'catalog-bot/0.9' } }));
  const body = await expectContract('GET', url, seen, fixtureContract);
  return { ...seen, body: body as Record<string, any> };
}

/** AdjustStock with the deprecated `reason`, through connect-node's gRPC client. */
async function adjustWithReason() {
  const client = createConnectClient(Inventory, createGrpcTransport({ baseUrl: server.grpcUrl, interceptors: [] }));
  const headers = new Headers();
  try {
    await client.adjustStock(
      { sku, delta: 1, reason: 'goods received' },
      {
        onHeader: (h) => {
          for (const [k, v] of h) headers.set(k, v);
        },
      },
    );
    return { error: undefined, headers };
  } catch (error) {
    return { error: ConnectError.from(error), headers };
  }
}

async function admin(method: string, pathname: string, body?: unknown) {
  const url = `${server.httpUrl}${pathname}`;
  const seen = await see(
    await fetch(url, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }),
  );
  return {
    status: seen.status,
    headers: seen.headers,
    body: (await expectContract(method, url, seen, fixtureContract)) as any,
  };
}

/** Moves the clock one day at a time to `until`, letting the usage recorder flush each day. */
async function liveDays(until: string, each: (day: string) => Promise<void> = async () => undefined) {
  while (clock.toISOString().slice(0, 10) < until) {
    clock = new Date(clock.getTime() + DAY);
    await each(clock.toISOString().slice(0, 10));
    await server.flushUsage();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const start = Date.parse('2026-12-10T10:00:00.000Z');
const end = start + 30 * 60_000;

describe('the retirement sequence', () => {
  it('measures, announces a brownout, blocks each protocol in its window and surfaces an unmeasured caller', async () => {
    // Measured callers: shop-web reads Order.note; the catalog bot lists products.
    expect((await graphql(keys.web, 'shop-web/3.2.1', '{ orders(first: 1) { id note } }')).errors).toBeUndefined();
    expect((await listProducts()).status).toBe(200);
    await server.flushUsage();

    // Scheduling: the notice period and overlaps are enforced.
    const early = await admin('POST', '/v1/brownouts', {
      item: 'graphql.Order.note',
      startsAt: iso(clock.getTime() + 3 * DAY),
      endsAt: iso(clock.getTime() + 3 * DAY + 60_000),
    });
    expect(early).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    for (const item of ['graphql.Order.note', 'rest.listProducts', 'grpc.inventory.v1.AdjustStockRequest.reason']) {
      const created = await admin('POST', '/v1/brownouts', { item, startsAt: iso(start), endsAt: iso(end) });
      expect(created).toMatchObject({ status: 201, body: { item, state: 'announced', cancelledAt: null } });
    }
    const overlap = await admin('POST', '/v1/brownouts', {
      item: 'rest.listProducts',
      startsAt: iso(end - 60_000),
      endsAt: iso(end + 60_000),
    });
    expect(overlap).toMatchObject({ status: 409, body: { code: 'BROWNOUT_CONFLICT' } });

    // Announced from the moment it is scheduled: in the published registry, and in-band on every use.
    const published = await (await fetch(`${server.httpUrl}/contracts/deprecations`)).json();
    const note = published.items.find((item: { id: string }) => item.id === 'graphql.Order.note');
    expect(note).toMatchObject({ state: 'announced', brownouts: [{ startsAt: iso(start), endsAt: iso(end) }] });
    const window = `${iso(start)}/${iso(end)}`;
    const signalled = await listProducts();
    expect(signalled.headers.get('brownout')).toBe(window);
    // Browsers may read it too.
    expect(signalled.headers.get('access-control-expose-headers')?.split(',')).toContain('Brownout');
    const announced = await graphql(keys.web, 'shop-web/3.2.1', '{ orders(first: 1) { id note } }');
    expect(announced.extensions?.deprecations[0].brownouts).toEqual([{ startsAt: iso(start), endsAt: iso(end) }]);
    expect((await adjustWithReason()).headers.get('brownout')).toBe(window);

    // In the window (5 minutes in, so 25 minutes are left).
    at(iso(start + 5 * 60_000));
    const refused = await listProducts();
    expect(refused.status).toBe(410);
    expect(refused.body).toMatchObject({ code: 'BROWNOUT', status: 410 });
    expect(refused.headers.get('retry-after')).toBe('1500');
    expect(refused.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(refused.headers.get('link')).toContain('</docs/deprecations#rest.listProducts>; rel="deprecation"');
    // GraphQL: partial success. shop-ios had never read Order.note.
    const partial = await graphql(keys.ios, 'shop-ios/1.0.0', '{ orders(first: 1) { id note } }');
    expect(partial.data.orders[0]).toEqual({ id: expect.any(String), note: null });
    expect(partial.errors).toMatchObject([{ path: ['orders', 0, 'note'], extensions: { code: 'BROWNOUT' } }]);
    const grpcRefusal = (await adjustWithReason()).error;
    expect(grpcRefusal?.code).toBe(9); // FAILED_PRECONDITION
    expect(grpcRefusal?.findDetails(ErrorInfoSchema)[0]?.reason).toBe('BROWNOUT');
    expect(grpcRefusal?.metadata.get('retry-after')).toBe('1500');
    await server.flushUsage();

    // The report: the brownout surfaced shop-ios; shop-web was measured before.
    const callers = await admin('GET', '/v1/deprecations/graphql.Order.note/callers');
    const byClient = (client: string) =>
      callers.body.items.find((caller: any) => caller.clients.some((entry: any) => entry.client === client));
    expect(byClient('shop-ios/1.0.0')).toMatchObject({ uses: 0, brownoutHits: 1, surfacedByBrownout: true });
    expect(byClient('shop-web/3.2.1')).toMatchObject({ uses: 2, brownoutHits: 0, surfacedByBrownout: false });

    // After the window everything answers again.
    at(iso(end));
    expect((await listProducts()).status).toBe(200);
    expect((await adjustWithReason()).error).toBeUndefined();

    // A window is read by id and cancelled: it stays, cancelled, and no longer announced.
    const later = { startsAt: iso(end + 8 * DAY), endsAt: iso(end + 8 * DAY + 60_000) };
    const scheduled = await admin('POST', '/v1/brownouts', { item: 'rest.listProducts', ...later });
    const id = scheduled.body.id;
    expect(scheduled.headers.get('location')).toBe(`/v1/brownouts/${id}`);
    expect(await admin('GET', `/v1/brownouts/${id}`)).toMatchObject({ status: 200, body: { id, state: 'announced' } });
    expect((await listProducts()).headers.get('brownout')).toBe(`${later.startsAt}/${later.endsAt}`);
    const cancelled = await admin('POST', `/v1/brownouts/${id}/cancellation`);
    expect(cancelled).toMatchObject({ status: 200, body: { id, state: 'cancelled', cancelledAt: iso(end) } });
    expect(await admin('GET', `/v1/brownouts/${id}`)).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    expect((await listProducts()).headers.get('brownout')).toBeNull();
    expect(await admin('GET', '/v1/brownouts/999999')).toMatchObject({
      status: 404,
      body: { code: 'BROWNOUT_NOT_FOUND' },
    });
  });

  it('exports zero use of a retired item and passes its removal; keeps an item still in use overdue and refuses it', async () => {
    // Every caller moves off Order.note; the catalog bot keeps listing products once a week, past the sunset.
    // (Days before the last 45 are skipped: no instance runs then, and the export looks at 45 days.)
    at('2027-06-15T12:00:00.000Z');
    await liveDays('2027-08-05', async (day) => {
      if (new Date(`${day}T00:00:00Z`).getUTCDay() === 1) expect((await listProducts()).status).toBe(200);
    });
    const report = await admin('GET', '/v1/deprecations?size=100');
    const stateOf = (id: string) => report.body.items.find((item: any) => item.id === id).state;
    expect(stateOf('graphql.Order.note')).toBe('sunset-passed');
    expect(stateOf('rest.listProducts')).toBe('overdue');
    const published = await (await fetch(`${server.httpUrl}/contracts/deprecations`)).json();
    expect(published.items.find((item: any) => item.id === 'rest.listProducts').state).toBe('overdue');

    // The key that signs this deployment's evidence, as the server publishes it (and a release commits it).
    const publishedKey = await fetch(`${server.httpUrl}/contracts/evidence-key`);
    expect(publishedKey.status).toBe(200);
    expect(publishedKey.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const evidenceKey = await publishedKey.text();
    expect(evidenceKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);

    // The evidence, from the database by the operator's command (the embedded database needs the server stopped),
    // over enough days to include the brownout window held on 2026-12-10.
    await server.close();
    const evidenceDir = path.join(fixture.root, 'contracts/evidence');
    const exported: Record<string, string> = {};
    for (const item of ['graphql.Order.note', 'rest.listProducts']) {
      exported[item] = path.join(evidenceDir, `${item}.json`);
      await promisify(execFile)(
        'npx',
        [
          'tsx',
          'src/cli/usage-export.ts',
          item,
          '--days',
          '240',
          '--to',
          '2027-08-05',
          '--out',
          exported[item] as string,
          '--registry',
          path.join(fixture.root, 'generated/deprecations.json'),
        ],
        { cwd: root, env: { ...process.env, ...databaseEnv } },
      );
    }
    const noteEvidence = JSON.parse(readFileSync(exported['graphql.Order.note'] as string, 'utf8'));
    expect(noteEvidence).toMatchObject({
      format: 'order-api.usage-export/3',
      item: 'graphql.Order.note',
      from: '2026-12-09',
      to: '2027-08-05',
      // From 2026-12-09 on: shop-web's reads came before; shop-ios's refused read in the window.
      totals: { uses: 0, brownoutHits: 1 },
      // The window was held (not cancelled, over by the export), and shop-ios hit it.
      brownouts: [{ startsAt: iso(start), endsAt: iso(end), minutes: 30, cancelledAt: null, held: true, hits: 1 }],
      keyId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      signature: expect.any(String),
    });
    // The server registered when it started and flushed every day since 2027-06-15: 45 measured days and more.
    expect(noteEvidence.days.slice(-45).every((day: { measured: boolean }) => day.measured)).toBe(true);
    expect(noteEvidence.quietDays).toBeGreaterThanOrEqual(30);

    // The release that removes both items, gated against the fixture's contracts as released.
    const head = mkdtempSync(path.join(tmpdir(), 'retirement-head-'));
    cpSync(path.join(fixture.root, 'contracts'), head, { recursive: true });
    const sdl = path.join(head, 'schema.graphql');
    writeFileSync(
      sdl,
      readFileSync(sdl, 'utf8').replace(
        /\n\s*"A note from the customer."\n\s*note: String @deprecated\([^)]*\)\n/,
        '\n',
      ),
    );
    const openapi = path.join(head, 'openapi.yaml');
    writeFileSync(
      openapi,
      readFileSync(openapi, 'utf8').replace(
        /\n {2}\/v1\/products:\n {4}get:\n[\s\S]*?\n {4}post:/,
        '\n  /v1/products:\n    post:',
      ),
    );
    const retirements: Retirement[] = [
      {
        contract: 'graphql',
        item: 'Order.note',
        registryItem: 'graphql.Order.note',
        evidence: exported['graphql.Order.note'] as string,
        quietDays: 30,
      },
      {
        contract: 'openapi',
        item: 'GET /v1/products',
        registryItem: 'rest.listProducts',
        evidence: exported['rest.listProducts'] as string,
        quietDays: 30,
      },
    ];
    // The release history: the fixture's contracts, released on the day they deprecated the items (241 days
    // before the sunset), with the evidence key the server published committed in them.
    const baseDir = path.join(fixture.root, 'contracts');
    const released = releaseFromDirectory(baseDir, { version: '1.1.0', date: DEPRECATED_ON });
    const history = historyOf([withEvidenceKey(released, evidenceKey)]);
    const result = await runGate({ root, baseDir, headDir: head, retirements, today: '2027-08-06', history });
    rmSync(head, { recursive: true, force: true });
    const finding = (item: string) => result.findings.find((f) => f.item === item);
    expect(finding('Order.note')?.retiredBy?.verdict).toMatchObject({
      allowed: true,
      sunset: SUNSET,
      announced: DEPRECATED_ON,
      noticeDays: 241,
      brownout: { startsAt: iso(start), endsAt: iso(end), minutes: 30, hits: 1 },
    });
    expect(result.blocking).toContain(finding('GET /v1/products'));
    expect(finding('GET /v1/products')?.refused).toMatch(
      /^overdue: still used after its sunset 2027-06-30, by key 0 \[catalog-bot\/0\.9\]/,
    );
  });
});
