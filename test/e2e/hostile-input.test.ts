import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReserveRequestSchema } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { grpcClient } from '../support/grpc-client.js';
import { GRPC_HOSTS } from '../support/grpc-hosts.js';
import { startTestServer } from '../support/server.js';

// Hostile or unlucky input gets the documented answer on every protocol, never a 5xx, and the
// server stays healthy after each.
const ADMIN_KEY = 'hostile-input-admin-key-0123456789';
const json = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

let server: RunningServer;
let sku: string;
let orderId: number;

/** A server with one user, one product (stock 100) and one order holding 1 of it. */
async function seededServer(env: Record<string, string> = {}) {
  const started = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false', ...env });
  const user = await checkedFetch(started.httpUrl, '/v1/users', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Hostile', email: 'hostile@example.com', address: { zipCode: '1', line1: 'x' } }),
  });
  const userId = (user.body as { id: number }).id;
  const product = await checkedFetch(started.httpUrl, '/v1/products', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Bean', sku: 'HOSTILE-1', price: 10, stock: 100 }),
  });
  const { id: productId, sku } = product.body as { id: number; sku: string };
  const order = await checkedFetch(started.httpUrl, '/v1/orders', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ userId, items: [{ productId, quantity: 1 }] }),
  });
  return { server: started, sku, orderId: (order.body as { id: number }).id };
}

beforeAll(async () => {
  ({ server, sku, orderId } = await seededServer());
});
afterAll(async () => {
  await server?.close();
});

async function expectHealthy(on: RunningServer = server) {
  const health = await checkedFetch(on.httpUrl, '/health');
  expect(health.status).toBe(200);
}

describe('REST', () => {
  it.each([
    ['a body string', 'POST', '/v1/orders', { userId: 0, items: [], note: 'a\u0000b' }, 'body', '/note'],
    ['a user name', 'POST', '/v1/users', { name: 'N\u0000', email: 'n@example.com' }, 'body', '/name'],
    ['the search body', 'POST', '/v1/orders/search', { q: '\u0000' }, 'body', '/q'],
    ['a query value', 'GET', '/v1/orders?q=a%00b', undefined, 'query', 'q'],
  ])(
    'refuses a NUL character in %s with 400 VALIDATION_FAILED naming it',
    async (_, method, path, body, where, name) => {
      const answer = await checkedFetch(server.httpUrl, path, {
        method,
        headers: json,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: where, name }] });
      await expectHealthy();
    },
  );

  it.each([
    ['POST', '/v1/orders', (deep: string) => `{"userId":1,"items":[],"note":${deep}}`],
    ['POST', '/v1/orders/search', (deep: string) => `{"q":${deep}}`],
    ['POST', '/v1/users', (deep: string) => deep],
  ])(
    'refuses a body nested 10,000 levels deep on %s %s with 400 VALIDATION_FAILED, not a 500',
    async (method, path, body) => {
      const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
      const answer = await checkedFetch(server.httpUrl, path, { method, headers: json, body: body(deep) });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ in: 'body', name: '' }] });
      await expectHealthy();
    },
  );

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'answers 404 for the object-prototype name %s under /contracts and /docs/assets',
    async (name) => {
      const contract = await checkedFetch(server.httpUrl, `/contracts/${name}`);
      expect(contract.status).toBe(404);
      const asset = await fetch(`${server.httpUrl}/docs/assets/${name}`);
      expect(asset.status).toBe(404);
      const query = await checkedFetch(server.httpUrl, `/v1/products?${name}=1`);
      expect(query.status).toBe(400);
      expect(query.body).toMatchObject({ code: 'UNKNOWN_PARAMETER', errors: [{ in: 'query', name }] });
      await expectHealthy();
    },
  );

  it('lets 20 concurrent PATCHes without If-Match all succeed: no 412 the client never asked for', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        checkedFetch(server.httpUrl, `/v1/orders/${orderId}`, {
          method: 'PATCH',
          headers: { ...json, 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ note: `writer ${index}` }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const versions = answers.map((answer) => answer.headers.get('etag'));
    expect(new Set(versions).size).toBe(20);
    await expectHealthy();
  });
});

describe('GraphQL', () => {
  const graphql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await fetch(`${server.httpUrl}/graphql`, {
      method: 'POST',
      headers: { ...json, accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string; field?: string } }> };
    return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code), body };
  };

  it('answers variables nested 10,000 levels deep with 400 BAD_USER_INPUT, not INTERNAL', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const response = await fetch(`${server.httpUrl}/graphql`, {
      method: 'POST',
      headers: { ...json, accept: 'application/graphql-response+json' },
      body: `{"query":"query($n: String) { orders(filter: { from: $n }) { id } }","variables":{"n":${deep}}}`,
    });
    const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(response.status).toBe(400);
    expect((body.errors ?? []).map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    await expectHealthy();
  });

  it.each([
    ['a variable of the wrong type', 'query($id: ID!) { order(id: $id) { id } }', { id: { nested: true } }],
    ['an Int variable out of range', 'query($n: Int) { orders(first: $n) { id } }', { n: 1e12 }],
    [
      'an unknown enum value in a variable',
      'query($s: [OrderStatus!]) { orders(filter: { status: $s }) { id } }',
      { s: ['LOST'] },
    ],
    ['a missing variable', 'query($id: ID!) { order(id: $id) { id } }', {}],
  ])('answers %s with 400 BAD_USER_INPUT', async (_, query, variables) => {
    const answer = await graphql(query, variables);
    expect(answer.status).toBe(400);
    expect(answer.codes).toEqual(['BAD_USER_INPUT']);
    await expectHealthy();
  });

  // U+0000 is refused as REST refuses it, the same code naming the same member, however sent.
  it.each([
    ['in a literal', '{ orders(filter: { from: "a\\u0000" }) { id } }', undefined],
    ['in a variable', 'query($n: String) { orders(filter: { from: $n }) { id } }', { n: 'a\u0000' }],
    ['in an input object variable', 'query($f: OrderFilter) { orders(filter: $f) { id } }', { f: { from: 'a\u0000' } }],
  ])(
    'answers a NUL character %s with VALIDATION_FAILED naming the member as REST does',
    async (_, query, variables) => {
      const rest = await checkedFetch(server.httpUrl, '/v1/orders/search', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ from: 'a\u0000' }),
      });
      expect(rest.status).toBe(400);
      const answer = await graphql(query, variables);
      expect(answer.codes).toEqual(['VALIDATION_FAILED']);
      const extensions = answer.body.errors?.[0]?.extensions as { violations?: unknown } | undefined;
      expect(extensions?.violations).toEqual((rest.body as { errors: unknown }).errors);
      expect(extensions?.violations).toEqual([
        { in: 'body', name: '/from', message: 'must not contain a NUL character (U+0000)' },
      ]);
      await expectHealthy();
    },
  );

  it.each([
    ['filter.userId "abc"', '{ orders(filter: { userId: "abc" }) { id } }', 'VALIDATION_FAILED'],
    ['a non-numeric id', '{ order(id: "abc") { id } }', 'ORDER_NOT_FOUND'],
    ['an id out of range', '{ order(id: "99999999999999999999") { id } }', 'ORDER_NOT_FOUND'],
    ['an unknown enum literal', '{ orders(filter: { status: [LOST] }) { id } }', 'GRAPHQL_VALIDATION_FAILED'],
  ])('answers %s with a client code, never INTERNAL', async (_, query, code) => {
    const answer = await graphql(query);
    expect(answer.status).toBeLessThan(500);
    expect(answer.codes).toEqual([code]);
    await expectHealthy();
  });
});

/** Sends one framed message over HTTP/2 as a gRPC client would; resolves with the `grpc-status`. */
function rawCall(
  url: string,
  path: string,
  frame: Buffer,
  headers: Record<string, string> = {},
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let found: string | undefined;
    stream.on('response', (answer) => {
      found ??= answer['grpc-status'] as string | undefined;
    });
    stream.on('trailers', (trailers) => {
      found ??= trailers['grpc-status'] as string | undefined;
    });
    stream.on('data', () => undefined);
    stream.on('close', () => {
      session.close();
      resolve(found);
    });
    stream.end(frame);
  });
}

/** A gRPC frame: uncompressed flag, 4-byte length, the message. */
const framed = (message: Uint8Array) => {
  const frame = Buffer.concat([Buffer.alloc(5), message]);
  frame.writeUInt32BE(message.length, 1);
  return frame;
};

// Every gRPC case runs against both hosts of the internal port (GRPC_SERVER).
describe.each(GRPC_HOSTS)('gRPC on the %s host', (host) => {
  let target: { server: RunningServer; sku: string };
  beforeAll(async () => {
    target = host === 'grpc-js' ? { server, sku } : await seededServer({ GRPC_SERVER: host });
  });
  afterAll(async () => {
    if (target?.server !== server) await target?.server.close();
  });
  const call = (method: string, request: object) => {
    const client = grpcClient({ address: target.server.grpcUrl });
    return client.call(method, request).finally(() => client.close());
  };

  it('refuses a NUL character in a sku with INVALID_ARGUMENT', async () => {
    expect(await call('getStock', { sku: 'BEAN\u0000' })).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expectHealthy(target.server);
  });

  it('refuses an AdjustStock that would overflow on-hand stock with INVALID_ARGUMENT', async () => {
    expect(await call('adjustStock', { sku: target.sku, delta: 2147483647 })).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    expect((await call('getStock', { sku: target.sku })).reply?.stock).toMatchObject({ onHand: 100 });
  });

  it('refuses a message above 4 MiB with RESOURCE_EXHAUSTED', async () => {
    const outcome = await call('getStock', { sku: 'x'.repeat(5 * 1024 * 1024) });
    expect(outcome.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await expectHealthy(target.server);
  });

  it('refuses a gzip message that inflates beyond 4 MiB with RESOURCE_EXHAUSTED, quickly', async () => {
    // GetStockRequest { sku (field 1) = 16 MiB of "a" }: about 16 KiB on the wire.
    const sku = Buffer.alloc(16 * 1024 * 1024, 'a');
    const length = sku.length;
    const varint: number[] = [];
    for (let rest = length; ; rest = Math.floor(rest / 128)) {
      if (rest < 128) {
        varint.push(rest);
        break;
      }
      varint.push((rest % 128) | 128);
    }
    const message = Buffer.concat([Buffer.from([0x0a, ...varint]), sku]);
    const compressed = gzipSync(message);
    const frame = Buffer.concat([Buffer.from([1]), Buffer.alloc(4), compressed]);
    frame.writeUInt32BE(compressed.length, 1);
    const startedAt = Date.now();
    const status = await rawCall(target.server.grpcUrl, '/inventory.v1.Inventory/GetStock', frame, {
      'grpc-encoding': 'gzip',
    });
    expect(status).toBe(String(grpc.status.RESOURCE_EXHAUSTED));
    expect(Date.now() - startedAt).toBeLessThan(2000);
    await expectHealthy(target.server);
  });

  it('keeps the status message short whatever the input', async () => {
    const outcome = await call('getStock', { sku: 'Z'.repeat(100_000) });
    expect(outcome.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outcome.details.length).toBeLessThanOrEqual(512);
  });

  it('answers an unknown method or service with UNIMPLEMENTED', async () => {
    const client = grpcClient({ address: target.server.grpcUrl });
    const unary = async (path: string) => (await client.raw(path, Buffer.alloc(0))).code;
    try {
      expect(await unary('/inventory.v1.Inventory/Teleport')).toBe(grpc.status.UNIMPLEMENTED);
      expect(await unary('/nowhere.v1.Nothing/Get')).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      client.close();
    }
  });

  it('lets no Reserve with a 1 ms deadline succeed or hold stock', async () => {
    // Sent raw, so that the 1 ms reach the server (a client library gives up before sending).
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        rawCall(
          target.server.grpcUrl,
          '/inventory.v1.Inventory/Reserve',
          framed(
            toBinary(
              ReserveRequestSchema,
              create(ReserveRequestSchema, { orderId: String(900_000 + index), sku: target.sku, quantity: 1 }),
            ),
          ),
          { 'grpc-timeout': '1m' },
        ),
      ),
    );
    expect(statuses.filter((status) => status === '0')).toEqual([]);
    expect((await call('getStock', { sku: target.sku })).reply?.stock).toMatchObject({ reserved: 1 });
    await expectHealthy(target.server);
  });
});
