import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistedOperationIds } from '../../generated/graphql/persisted-operation-ids.js';
import type { RunningServer } from '../../src/main.js';
import { contractClient } from '../support/client.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'graphql-test-admin-key-0123456789';
let server: RunningServer;
let customerKey: string;
let customerId: number;
let productId: number;

type GraphQLBody = {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

async function graphql(query: string, variables: Record<string, unknown> = {}, key: string | null = ADMIN_KEY) {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLBody };
}

const rest = (path: string, init: RequestInit & { key?: string } = {}) => {
  const { key = ADMIN_KEY, ...rest } = init;
  return checkedFetch(server.httpUrl, path, {
    ...rest,
    headers: {
      authorization: `Bearer ${key}`,
      ...(rest.body ? { 'content-type': 'application/json' } : {}),
      ...(rest.headers as object),
    },
  });
};

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  const admin = contractClient(server.httpUrl, ADMIN_KEY);
  const user = await admin.POST('/v1/users', {
    body: { name: 'Grace', email: 'grace@example.com', address: { zipCode: '1', line1: 'Main St' } },
  });
  customerId = user.data?.id as number;
  customerKey = (await admin.POST('/v1/api-keys', { body: { userId: customerId, role: 'customer' } })).data
    ?.key as string;
  productId = (await admin.POST('/v1/products', { body: { name: 'Dripper', sku: 'GQL-1', price: 29, stock: 100 } }))
    .data?.id as number;
  for (let index = 0; index < 4; index++) {
    await admin.POST('/v1/orders', { body: { userId: customerId, items: [{ productId, quantity: 1 + index }] } });
  }
});
afterAll(() => server?.close());

describe('GraphQL over HTTP', () => {
  it('passes the graphql-http audit suite', async () => {
    const failures = [];
    for (const audit of serverAudits({ url: () => `${server.httpUrl}/graphql` })) {
      const result = await audit.fn();
      if (result.status === 'error') failures.push(`${audit.name}: ${result.reason}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers the spec’s queries verbatim, several resources in one round trip', async () => {
    const list = await graphql('{ orders(first: 2) { id user { name } } }');
    expect(list.body.data?.orders).toHaveLength(2);
    expect(list.body.data?.orders[0]).toEqual({ id: expect.any(String), user: { name: 'Grace' } });
    const id = list.body.data?.orders[0].id;
    const one = await graphql(
      `{ order(id: "${id}") { id amount user { name } product { name imageUrl rating } shipment { status } } products(first: 1) { nodes { name } } }`,
    );
    expect(one.body.data).toEqual({
      order: {
        id,
        amount: expect.any(Number),
        user: { name: 'Grace' },
        product: { name: 'Dripper', imageUrl: null, rating: null },
        shipment: null,
      },
      products: { nodes: [{ name: 'Dripper' }] },
    });
  });

  it('answers a wrong key with HTTP 401', async () => {
    const response = await graphql('{ me { id } }', {}, 'oak_wrong');
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answers other methods with 405 and Allow, and preflights with one CORS policy', async () => {
    const put = await fetch(`${server.httpUrl}/graphql`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, OPTIONS');
    const preflight = await fetch(`${server.httpUrl}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('refuses mutations over GET', async () => {
    const query = encodeURIComponent('mutation { deleteOrder(id: "1") }');
    const response = await fetch(`${server.httpUrl}/graphql?query=${query}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(response.status).toBe(405);
  });

  it('serves GraphiQL as a small static page with its files from this host, cached and compressed', async () => {
    const response = await fetch(`${server.httpUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('GraphiQL');
    // The page is about 1 KB; the 9 MB bundle is in files a browser caches (it was rendered into every page).
    expect(html.length).toBeLessThan(4096);
    expect(html).not.toMatch(/<script>|<style>/);
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const etag = response.headers.get('etag') ?? '';
    const again = await fetch(`${server.httpUrl}/graphql`, { headers: { accept: 'text/html', 'if-none-match': etag } });
    expect([again.status, await again.text()]).toEqual([304, '']);

    const files = [...html.matchAll(/(?:src|href)="(\/graphql\/graphiql\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(files.map((file) => file.replace(/\?.*/, ''))).toEqual([
      '/graphql/graphiql/graphiql.css',
      '/graphql/graphiql/graphiql.js',
    ]);
    const script = await fetch(`${server.httpUrl}${files[1]}`, { headers: { 'accept-encoding': 'identity' } });
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toContain('immutable');
    const size = (await script.arrayBuffer()).byteLength;
    expect(size).toBeGreaterThan(1_000_000);
    // The first request that accepts gzip starts the compression; the answers after it are compressed.
    await fetch(`${server.httpUrl}${files[1]}`, { headers: { 'accept-encoding': 'gzip' } }).then((r) =>
      r.arrayBuffer(),
    );
    await expect
      .poll(
        async () => {
          const compressed = await fetch(`${server.httpUrl}${files[1]}`, { headers: { 'accept-encoding': 'gzip' } });
          await compressed.arrayBuffer();
          return compressed.headers.get('content-encoding');
          // Compressing 9 MB off the event loop takes a few hundred ms, more on a loaded machine.
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe('gzip');
    const unknown = await fetch(`${server.httpUrl}/graphql/graphiql/constructor`);
    expect([unknown.status, unknown.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
  });

  it('answers a browser with GraphQL, not GraphiQL, when GRAPHIQL is false', async () => {
    const without = await startTestServer({ GRAPHIQL: 'false', SEED_DEMO: 'false' });
    try {
      const page = await fetch(`${without.httpUrl}/graphql`, { headers: { accept: 'text/html' } });
      expect([page.status, page.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
      expect(((await page.json()) as { detail: string }).detail).toContain('GRAPHIQL=false');
      expect((await fetch(`${without.httpUrl}/graphql/graphiql/graphiql.js`)).status).toBe(404);
    } finally {
      await without.close();
    }
  });
});

describe('metrics', () => {
  it('counts GraphQL failures from the errors in the body, and is for admins only', async () => {
    await graphql('query Missing { order(id: "424242") { id } }');
    const customer = await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: `Bearer ${customerKey}` } });
    expect(customer.status).toBe(403);
    expect((await fetch(`${server.httpUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: 'Bearer oak_wrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
    const response = await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const text = await response.text();
    expect(text).toMatch(/graphql_operations_total\{operation="Missing",outcome="error"\} 1/);
    expect(text).toMatch(/graphql_errors_total\{code="ORDER_NOT_FOUND"\} [1-9]/);
    expect(text).toMatch(/http_requests_total\{method="POST",route="createOrder",status="201"\}/);
  });
});

describe('persisted operations', () => {
  it('runs a manifest operation by documentId over GET and by APQ hash over POST', async () => {
    const variables = encodeURIComponent(JSON.stringify({ first: 1 }));
    const get = await fetch(
      `${server.httpUrl}/graphql?documentId=${persistedOperationIds.OrderList}&variables=${variables}`,
      {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      },
    );
    expect(get.status).toBe(200);
    expect(((await get.json()) as GraphQLBody).data?.orders).toHaveLength(1);
    const post = await fetch(`${server.httpUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({
        variables: { first: 2 },
        extensions: { persistedQuery: { version: 1, sha256Hash: persistedOperationIds.OrderList } },
      }),
    });
    expect(((await post.json()) as GraphQLBody).data?.orders).toHaveLength(2);
    const unknown = await fetch(`${server.httpUrl}/graphql?documentId=${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as GraphQLBody).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses other documents in allow-list mode', async () => {
    const locked = await startTestServer({ SEED_DEMO: 'false', GRAPHQL_PERSISTED_ONLY: 'true' });
    try {
      const response = await fetch(`${locked.httpUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ products(first: 1) { nodes { id } } }' }),
      });
      expect(response.status).toBe(403);
      expect(((await response.json()) as GraphQLBody).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
      const persisted = await fetch(`${locked.httpUrl}/graphql?documentId=${persistedOperationIds.Products}`);
      expect(((await persisted.json()) as GraphQLBody).errors).toBeUndefined();
    } finally {
      await locked.close();
    }
  });
});

// Error-code parity across REST, GraphQL and gRPC is in parity.test.ts.
describe('state shared by REST and GraphQL', () => {
  it('shares cursors: a GraphQL endCursor continues a REST list with the same filter and sort', async () => {
    const page = await graphql(
      '{ ordersConnection(first: 1, filter: { status: [PENDING] }, sort: "-amount") { pageInfo { endCursor } } }',
    );
    const cursor = page.body.data?.ordersConnection.pageInfo.endCursor as string;
    const continued = await rest(`/v1/orders?status=pending&sort=-amount&size=1&cursor=${cursor}`);
    expect(continued.status).toBe(200);
    const restFirst = (await rest('/v1/orders?status=PENDING&sort=-amount&size=1')).body as { nextCursor: string };
    const fromRest = await graphql(
      `{ ordersConnection(first: 1, filter: { status: [PENDING] }, sort: "-amount", after: "${restFirst.nextCursor}") { nodes { id } } }`,
    );
    expect(fromRest.body.errors).toBeUndefined();
    expect(fromRest.body.data?.ordersConnection.nodes[0].id).toBe(
      String((continued.body as { items: Array<{ id: number }> }).items[0]?.id),
    );
  });

  it('shares idempotency keys: a GraphQL retry of a REST create replays it', async () => {
    const key = `shared-${Date.now()}`;
    const viaRest = await rest('/v1/orders', {
      method: 'POST',
      key: customerKey,
      headers: { 'Idempotency-Key': key },
      body: JSON.stringify({ items: [{ productId, quantity: 2 }] }),
    });
    const viaGraphql = await graphql(
      `mutation($key: String) { createOrder(input: { items: [{ productId: "${productId}", quantity: 2 }] }, idempotencyKey: $key) { id } }`,
      { key },
      customerKey,
    );
    expect(viaGraphql.body.data?.createOrder.id).toBe(String((viaRest.body as { id: number }).id));
  });
});
