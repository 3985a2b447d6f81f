/**
 * Scopes, expiry, rotation and revocation are one rule in the core: the same key gets the same code over
 * REST and GraphQL, and the gRPC port refuses an expired or rotated-out `x-api-key` with UNAUTHENTICATED.
 * The server's clock is moved (its `now`), so expiry and the end of a rotation's overlap are reached
 * without waiting; every key is used before the clock moves, so a cached check cannot hide the change.
 */
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/main.js';
import { contractClient, type ProblemBody } from '../support/client.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'key-parity-admin-key-0123456789ab';
const HOUR = 60 * 60 * 1000;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

let server: RunningServer;
let inventory: ReturnType<typeof createClient<typeof Inventory>>;
let productId: number;
const keys = {} as Record<'readOnly' | 'writeOnly' | 'expiring' | 'rotated' | 'successor' | 'revoked', string>;

type Answer = { status: number; code: string | undefined; requiredScope?: string | undefined };

async function rest(path: string, key: string, init: RequestInit = {}): Promise<Answer> {
  const seen = await checkedFetch(server.httpUrl, path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = seen.body as (ProblemBody & { requiredScope?: string }) | undefined;
  return {
    status: seen.status,
    code: body?.code,
    ...(body?.requiredScope ? { requiredScope: body.requiredScope } : {}),
  };
}

async function graphql(query: string, key: string): Promise<Answer> {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as {
    errors?: Array<{ extensions?: { code?: string; requiredScope?: string } }>;
  };
  const extensions = body.errors?.[0]?.extensions;
  return {
    status: response.status,
    code: extensions?.code,
    ...(extensions?.requiredScope ? { requiredScope: extensions.requiredScope } : {}),
  };
}

/** A gRPC call that names its caller in `x-api-key` (the deprecation report counts it by key). */
async function grpcWith(key: string): Promise<Code | 'OK'> {
  try {
    await inventory.getStock({ sku: 'KP-1' }, { headers: { 'x-api-key': key } });
    return 'OK';
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

const placeOrder = (key: string) =>
  rest('/v1/orders', key, { method: 'POST', body: JSON.stringify({ items: [{ productId, quantity: 1 }] }) });
const placeOrderGraphql = (key: string) =>
  graphql(`mutation { createOrder(input: { items: [{ productId: "${productId}", quantity: 1 }] }) { id } }`, key);

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' }, { now });
  inventory = createClient(Inventory, createGrpcTransport({ baseUrl: server.grpcUrl }));
  const admin = contractClient(server.httpUrl, ADMIN_KEY);
  const user = await admin.POST('/v1/users', {
    body: { name: 'Keys', email: 'key-parity@example.com', address: { zipCode: '1', line1: 'Main St' } },
  });
  const userId = user.data?.id as number;
  productId = (await admin.POST('/v1/products', { body: { name: 'Kettle', sku: 'KP-1', price: 10, stock: 100 } })).data
    ?.id as number;
  const issue = async (extra: { scopes?: string[]; expiresAt?: string } = {}) => {
    const created = await admin.POST('/v1/api-keys', { body: { userId, role: 'customer', ...(extra as object) } });
    return created.data as { id: number; key: string };
  };
  keys.readOnly = (await issue({ scopes: ['orders:read'] })).key;
  keys.writeOnly = (await issue({ scopes: ['orders:write'] })).key;
  expect((await placeOrder(keys.writeOnly)).status).toBe(201);
  keys.expiring = (await issue({ expiresAt: new Date(now().getTime() + HOUR).toISOString() })).key;
  const toRotate = await issue();
  keys.rotated = toRotate.key;
  const revoked = await issue();
  keys.revoked = revoked.key;

  // Every key works (and is now in the verified-key cache) before anything ends it.
  for (const key of [keys.expiring, keys.rotated]) {
    expect(await rest('/v1/orders', key)).toEqual({ status: 200, code: undefined });
    expect(await grpcWith(key)).toBe('OK');
  }
  const rotation = await checkedFetch(server.httpUrl, `/v1/api-keys/${toRotate.id}/rotation`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.rotated}`, 'content-type': 'application/json' },
    body: JSON.stringify({ overlapUntil: new Date(now().getTime() + HOUR).toISOString() }),
  });
  expect(rotation.status).toBe(201);
  keys.successor = (rotation.body as { key: string }).key;
  // During the overlap both the old key and its successor work.
  expect(await rest('/v1/orders', keys.rotated)).toEqual({ status: 200, code: undefined });
  expect(await rest('/v1/orders', keys.successor)).toEqual({ status: 200, code: undefined });
  await admin.DELETE('/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId: revoked.id } } });
  // Past the expiry and the overlap, by the server's clock.
  offsetMs = 2 * HOUR;
});
afterAll(() => server?.close());

describe('keys behind REST, GraphQL and gRPC', () => {
  it('a key without the scope of a write is 403 INSUFFICIENT_SCOPE naming it, on REST and GraphQL alike', async () => {
    const expected = { code: 'INSUFFICIENT_SCOPE', requiredScope: 'orders:write' };
    expect(await placeOrder(keys.readOnly)).toEqual({ status: 403, ...expected });
    expect(await placeOrderGraphql(keys.readOnly)).toEqual({ status: 200, ...expected });
    // The scope it holds still works.
    expect((await rest('/v1/orders', keys.readOnly)).status).toBe(200);
  });

  it('a key without the scope of a read is refused alike, naming that scope', async () => {
    const expected = { code: 'INSUFFICIENT_SCOPE', requiredScope: 'users:read' };
    expect(await rest('/v1/users/me', keys.writeOnly)).toEqual({ status: 403, ...expected });
    expect(await graphql('{ me { id } }', keys.writeOnly)).toEqual({ status: 200, ...expected });
    // A nested field that reaches users declares its own scope.
    const nested = await graphql('{ orders(first: 1) { id user { name } } }', keys.readOnly);
    expect(nested).toEqual({ status: 200, code: 'INSUFFICIENT_SCOPE', requiredScope: 'users:read' });
  });

  it('an expired key is 401 UNAUTHENTICATED everywhere, gRPC x-api-key included', async () => {
    expect(await rest('/v1/orders', keys.expiring)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await graphql('{ me { id } }', keys.expiring)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await grpcWith(keys.expiring)).toBe(Code.Unauthenticated);
  });

  it('a rotated key stops after its overlap everywhere, while its successor works', async () => {
    expect(await rest('/v1/orders', keys.rotated)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await graphql('{ me { id } }', keys.rotated)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await grpcWith(keys.rotated)).toBe(Code.Unauthenticated);
    expect(await rest('/v1/orders', keys.successor)).toEqual({ status: 200, code: undefined });
    expect(await grpcWith(keys.successor)).toBe('OK');
  });

  it('a revoked key is 401 UNAUTHENTICATED everywhere', async () => {
    expect(await rest('/v1/orders', keys.revoked)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await graphql('{ me { id } }', keys.revoked)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await grpcWith(keys.revoked)).toBe(Code.Unauthenticated);
  });
});
