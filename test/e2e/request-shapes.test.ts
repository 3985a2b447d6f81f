/**
 * Who a contract change would break, from what callers really sent (docs/decisions.md §13), tried as a
 * contract owner would: on a fresh server, one caller selects `Order.note` in an ad-hoc GraphQL query, one
 * sends `minAmount` over REST, one sets `sku` in gRPC `Reserve`, and a fourth uses none of them (a GraphQL
 * query without `note`, the order list without `minAmount`, `GetStock`). The server stops; a copy of the
 * contracts removes each of the three items (`sku` retired with `reserved`, which buf lets through), and
 * `npm run contracts:impact -- --head <copy> --json` names exactly the caller of each, and exits 1. The copy
 * also removes REST `Order.couponCode`: it names every key whose answers carried orders in full, and the owner
 * of a webhook endpoint that received an order's event.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import type { RunningServer } from '../../src/main.js';
import { openDatabase } from '../../src/store/open.js';
import { checkedFetch } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { grpcClient } from '../support/grpc-client.js';
import { requires } from '../support/requires.js';
import { startFixtureServer } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'request-shapes-admin-key-0123456789';
const database = serverDatabase('request-shapes');
const scratch = mkdtempSync(path.join(tmpdir(), 'request-shapes-'));
const head = path.join(scratch, 'contracts');
let server: RunningServer | undefined;
const SECRET_VALUES = {
  note: 'left at the SENTINEL-4417 porch',
  idempotencyKey: 'idem-SENTINEL-7781-key',
  term: 'SENTINEL-q',
};
let orderId = '';
let cursor = '';
type Name = 'noteReader' | 'amountFilter' | 'reserver' | 'bystander' | 'hookOwner';
const keys = {} as Record<Name, { secret: string; id: number }>;
let receiver: Server | undefined;
let delivered = 0;

/** A copy of the contracts without `Order.note`, `GET /v1/orders`' `minAmount` and `ReserveRequest.sku`. */
function candidateContracts(): void {
  cpSync(path.join(root, 'contracts'), head, { recursive: true });
  const sdl = path.join(head, 'schema.graphql');
  writeFileSync(sdl, readFileSync(sdl, 'utf8').replace(/\n\s*"A note from the customer\."\n\s*note: String\n/, '\n'));
  const openapiFile = path.join(head, 'openapi.yaml');
  const openapi = parse(readFileSync(openapiFile, 'utf8'));
  const order = openapi.components.schemas.Order;
  delete order.properties.couponCode;
  order.required = order.required.filter((name: string) => name !== 'couponCode');
  const list = openapi.paths['/v1/orders'].get;
  list.parameters = list.parameters.filter((p: { $ref?: string }) => p.$ref !== '#/components/parameters/MinAmount');
  writeFileSync(openapiFile, stringify(openapi));
  const proto = path.join(head, 'inventory/v1/inventory.proto');
  writeFileSync(
    proto,
    readFileSync(proto, 'utf8').replace(
      /\n\s*\/\/ The stock-keeping unit to hold, as products name it; required\.\n\s*string sku = 4 \[[\s\S]*?\n {2}\];/,
      '\n  reserved 4;\n  reserved "sku";',
    ),
  );
}

beforeAll(async () => {
  candidateContracts();
  server = await startFixtureServer({
    projectRoot: root,
    database,
    adminKey: ADMIN_KEY,
    env: { USAGE_FLUSH_MS: '600000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '200' },
  });
  const { core } = server;
  const admin: Caller = await core.apiKeys.authenticate(ADMIN_KEY);
  const product = (
    await core.products.create(admin, { name: 'Shape beans', sku: 'SHAPE-1', price: minor(123456), stock: 50 })
  ).result;
  for (const name of ['noteReader', 'amountFilter', 'reserver', 'bystander', 'hookOwner'] as const) {
    const user = (
      await core.users.create(admin, {
        name,
        email: `${name.toLowerCase()}@shapes.example.com`,
        address: { zipCode: '04524', line1: '1 Road', line2: null },
      })
    ).result;
    const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer', label: `${name} app` });
    keys[name] = { secret: issued.secret, id: issued.apiKey.id };
  }
  // The hook owner's endpoint receives its order's event; it sends no request of its own.
  receiver = createServer((request, response) => {
    request.resume().on('end', () => {
      delivered += 1;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  const hookOwner = await core.apiKeys.authenticate(keys.hookOwner.secret);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await core.webhooks.create(hookOwner, { url, events: ['order.created'] });
  await core.orders.place(hookOwner, { items: [{ productId: product.id, quantity: 1 }] });
  const http = server.httpUrl;
  const graphql = (key: string, query: string) =>
    fetch(`${http}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'shape-test/1.0' },
      body: JSON.stringify({ query }),
    }).then((response) => response.json());
  const rest = (key: string, pathWithQuery: string, init: RequestInit = {}) =>
    checkedFetch(http, pathWithQuery, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'user-agent': 'shape-test/1.0', ...init.headers },
    });

  expect(await graphql(keys.noteReader.secret, '{ orders(first: 5) { id note status } }')).not.toHaveProperty('errors');
  expect((await rest(keys.amountFilter.secret, '/v1/orders?minAmount=10.00&sort=-amount')).status).toBe(200);
  const reserver = grpcClient({ address: server.grpcUrl, apiKey: keys.reserver.secret, userAgent: 'stock-sync/2.0' });
  const reserved = await reserver.call('Reserve', { orderId: '9001', sku: 'SHAPE-1', quantity: 1 });
  expect(reserved.code).toBe(0);
  // The bystander: every protocol, none of the three items.
  expect(await graphql(keys.bystander.secret, '{ orders(first: 5) { id status } }')).not.toHaveProperty('errors');
  expect((await rest(keys.bystander.secret, '/v1/orders?status=PAID')).status).toBe(200);
  // Values that must never reach the record: an id, an amount, text, an e-mail, a cursor, an idempotency key.
  const placed = await rest(keys.bystander.secret, '/v1/orders', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': SECRET_VALUES.idempotencyKey },
    body: JSON.stringify({ items: [{ productId: product.id, quantity: 3 }], note: SECRET_VALUES.note }),
  });
  expect(placed.status).toBe(201);
  orderId = String((placed.body as { id: number }).id);
  await core.orders.place(await core.apiKeys.authenticate(keys.bystander.secret), {
    items: [{ productId: product.id, quantity: 1 }],
  });
  await rest(keys.bystander.secret, `/v1/orders?size=1&q=${SECRET_VALUES.term}`);
  await rest(keys.bystander.secret, '/v1/orders?size=1&withTotal=true');
  const first = await rest(keys.bystander.secret, '/v1/orders?size=1');
  cursor = (first.body as { nextCursor?: string | null }).nextCursor ?? '';
  if (cursor) await rest(keys.bystander.secret, `/v1/orders?size=1&cursor=${encodeURIComponent(cursor)}`);
  const literal = `{ order(id: "${orderId}") { id status items { quantity } } }`;
  expect(await graphql(keys.bystander.secret, literal)).not.toHaveProperty('errors');
  const bystander = grpcClient({ address: server.grpcUrl, apiKey: keys.bystander.secret, userAgent: 'stock-sync/2.0' });
  expect((await bystander.call('GetStock', { sku: 'SHAPE-1' })).code).toBe(0);
  reserver.close();
  bystander.close();
  for (let waited = 0; delivered === 0 && waited < 100; waited++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(delivered).toBeGreaterThan(0);
  // The server stops: its last flush writes what it recorded.
  await server.close();
  server = undefined;
}, 120_000);

afterAll(async () => {
  await server?.close().catch(() => undefined);
  receiver?.close();
  await database.remove();
  rmSync(scratch, { recursive: true, force: true });
});

const impact = (...args: string[]) =>
  run('packages/contract-gate/src/cli/impact.ts', '--base', path.join(root, 'contracts'), '--head', head, ...args);

/** Runs a script against the server's database; a trailing object sets more of its environment. */
async function run(script: string, ...rest: Array<string | Record<string, string>>) {
  const args = rest.filter((arg): arg is string => typeof arg === 'string');
  const env: Record<string, string> = Object.assign({}, ...rest.filter((arg) => typeof arg !== 'string'));
  try {
    const { stdout } = await promisify(execFile)('npx', ['tsx', script, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', ...database.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('contracts:impact from the request-shape record', () => {
  it('names exactly the caller of each removed item, no one else, and exits 1', async () => {
    const { code, output } = await impact('--json');
    expect(code, output).toBe(1);
    const { impacts } = JSON.parse(output) as {
      impacts: Array<{ item: string; callers: Array<{ apiKeyId: number; label: string | null }> | null }>;
    };
    const callersOf = (item: string) =>
      impacts.find((entry) => entry.item === item)?.callers?.map((caller) => caller.apiKeyId);
    expect(callersOf('Order.note')).toEqual([keys.noteReader.id]);
    expect(callersOf('GET /v1/orders query:minAmount')).toEqual([keys.amountFilter.id]);
    expect(callersOf('inventory.v1.ReserveRequest.sku')).toEqual([keys.reserver.id]);
    // Whoever received orders in full: the two keys that listed them over REST, and the webhook's owner.
    expect(callersOf('Order.couponCode')?.sort()).toEqual(
      [keys.amountFilter.id, keys.bystander.id, keys.hookOwner.id].sort(),
    );
    // The event's payload schema composes `Order`: its own finding names the webhook's owner alone.
    expect(callersOf('OrderSnapshot.couponCode')).toEqual([keys.hookOwner.id]);
    const named = impacts
      .filter((entry) => !entry.item.endsWith('.couponCode'))
      .flatMap((entry) => entry.callers ?? [])
      .map((caller) => caller.apiKeyId);
    expect(named).not.toContain(keys.bystander.id);
    expect(named).not.toContain(keys.hookOwner.id);
    const note = impacts.find((entry) => entry.item === 'Order.note')?.callers?.[0];
    expect(note).toMatchObject({ label: 'noteReader app', owner: 'noteReader', clients: ['shape-test/1.0'], uses: 1 });
  });
});

describe('contracts:impact from a signed export', () => {
  // Once, in the embedded database's run (the PostgreSQL run reads an export through the gate below).
  it.runIf(requires(!database.env.DATABASE_URL, 'impact from a signed export', 'runs once, on the embedded database'))(
    'names the same callers from the file alone, and refuses an altered one',
    async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const keyFile = path.join(scratch, 'evidence-key.pem');
      writeFileSync(keyFile, publicKey.export({ format: 'pem', type: 'spki' }).toString());
      const exported = path.join(scratch, 'shapes.json');
      const signing = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      const written = await run('src/cli/shape-export.ts', '--out', exported, { EVIDENCE_SIGNING_KEY: signing });
      expect(written.code, written.output).toBe(0);
      // No database at all: the file is the record.
      const offline = { DATABASE_URL: '', DATABASE_SCHEMA: '', DATA_DIR: path.join(scratch, 'no-such-data') };
      const base = [
        '--base',
        path.join(root, 'contracts'),
        '--head',
        head,
        '--usage',
        exported,
        '--evidence-key',
        keyFile,
      ];
      const fromFile = await run('packages/contract-gate/src/cli/impact.ts', ...base, '--json', offline);
      expect(fromFile.code, fromFile.output).toBe(1);
      const { impacts } = JSON.parse(fromFile.output) as {
        impacts: Array<{ item: string; callers: Array<{ apiKeyId: number }> | null }>;
      };
      const callersOf = (item: string) =>
        impacts.find((entry) => entry.item === item)?.callers?.map((caller) => caller.apiKeyId);
      expect(callersOf('Order.note')).toEqual([keys.noteReader.id]);
      expect(callersOf('GET /v1/orders query:minAmount')).toEqual([keys.amountFilter.id]);
      expect(callersOf('inventory.v1.ReserveRequest.sku')).toEqual([keys.reserver.id]);
      // One count changed after signing: refused, exit 2.
      writeFileSync(exported, readFileSync(exported, 'utf8').replace('"count": 1', '"count": 7'));
      const altered = await run('packages/contract-gate/src/cli/impact.ts', ...base, offline);
      expect(altered.code).toBe(2);
      expect(altered.output).toContain('altered after it was signed');
    },
    120_000,
  );
});

describe('contracts:breaking with the record', () => {
  // Only with an explicit DATABASE_URL (never the implicit ./data): the PostgreSQL run.
  it.runIf(database.env.DATABASE_URL)(
    'prints beside each breaking change how many callers it would break',
    async () => {
      const gate = await run('packages/contract-gate/src/cli/breaking.ts', '--head', head);
      expect(gate.code, gate.output).toBe(1);
      expect(gate.output).toMatch(/1 caller\(s\)\s+\[parameter-removed\] GET \/v1\/orders query:minAmount/);
      expect(gate.output).toMatch(/1 caller\(s\)\s+\[FIELD_REMOVED\] Order\.note/);
      expect(gate.output).toMatch(/3 caller\(s\)\s+\[response-member-removed\] Order\.couponCode/);
      // The same counts from a signed export, with no database.
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const [exported, keyFile] = [path.join(scratch, 'gate-shapes.json'), path.join(scratch, 'gate-key.pem')];
      writeFileSync(keyFile, publicKey.export({ format: 'pem', type: 'spki' }).toString());
      const signing = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      expect((await run('src/cli/shape-export.ts', '--out', exported, { EVIDENCE_SIGNING_KEY: signing })).code).toBe(0);
      const offline = { DATABASE_URL: '', DATABASE_SCHEMA: '', DATA_DIR: path.join(scratch, 'no-such-data') };
      const flags = ['--head', head, '--usage', exported, '--evidence-key', keyFile];
      const fromFile = await run('packages/contract-gate/src/cli/breaking.ts', ...flags, offline);
      expect(fromFile.code, fromFile.output).toBe(1);
      expect(fromFile.output).toMatch(/1 caller\(s\)\s+\[parameter-removed\] GET \/v1\/orders query:minAmount/);
    },
    180_000,
  );
});

describe('the request-shape record', () => {
  it('holds names, never a value: no id, amount, text, e-mail, cursor, idempotency key or literal', async () => {
    const { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: dataDir = '' } = database.env;
    const { db } = await openDatabase({ ...(url ? { url, schema } : {}), dataDir, preparedStatements: 0 });
    const shapes = (await db.query<{ shape: string; client: string }>('SELECT shape, client FROM request_shapes')).map(
      (row) => `${row.shape} ${row.client}`,
    );
    const signatures = (await db.query<{ signature: string }>('SELECT signature FROM request_shape_signatures')).map(
      (row) => row.signature,
    );
    await db.close();
    const record = [...shapes, ...signatures].join('\n');
    // What was sent is there, by name.
    expect(shapes).toContain('POST /v1/orders header:Idempotency-Key shape-test/1.0');
    expect(record).toContain('.note');
    expect(record).toContain('GET /v1/orders query:cursor');
    expect(signatures).toContain('{order(id:""){id items{quantity}status}}');
    expect(cursor).not.toBe('');
    for (const value of [
      ...Object.values(SECRET_VALUES),
      'SENTINEL',
      'SHAPE-1',
      '1234.56',
      '123456',
      'shapes.example.com',
      cursor,
      `"${orderId}"`,
      `:${orderId}`,
    ])
      expect(record, value).not.toContain(value);
  });
});
