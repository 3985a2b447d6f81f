import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { startTestServer } from '../support/server.js';

// Apollo Client as a client team ships it: InMemoryCache (which adds __typename to every document), the
// stock relayStylePagination() field policy and the persisted-query link, unconfigured beyond that.
const ADMIN_KEY = 'apollo-test-admin-key-0123456789';
const root = path.resolve(import.meta.dirname, '../..');
const OrderEdges = parse(readFileSync(path.join(root, 'contracts/operations/OrderEdges.graphql'), 'utf8'));

interface Sent {
  method: string;
  url: string;
  body?: string;
}

function apollo(httpUrl: string) {
  const sent: Sent[] = [];
  const link = new PersistedQueryLink({
    sha256: (text: string) => createHash('sha256').update(text).digest('hex'),
  }).concat(
    new HttpLink({
      uri: `${httpUrl}/graphql`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      fetch: async (url, init) => {
        sent.push({
          method: init?.method ?? 'GET',
          url: String(url),
          ...(init?.body ? { body: String(init.body) } : {}),
        });
        return fetch(url, init);
      },
    }),
  );
  const cache = new InMemoryCache({
    typePolicies: { Query: { fields: { ordersConnection: relayStylePagination(['filter', 'sort']) } } },
  });
  return { client: new ApolloClient({ link, cache }), sent };
}

interface OrderEdgesData {
  ordersConnection: {
    edges: Array<{ cursor: string; node: { id: string } }>;
    pageInfo: { endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null };
  };
}

async function seedOrders(httpUrl: string, count: number) {
  const call = async (route: string, body: unknown) => {
    const response = await fetch(`${httpUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: number };
  };
  const product = await call('/v1/products', { name: 'Paged mug', sku: `MUG-${Date.now()}`, price: 12, stock: 100 });
  const user = await call('/v1/users', {
    name: 'Page Walker',
    email: `walker-${Date.now()}@example.com`,
    address: { zipCode: '04524', line1: '1 Page Street' },
  });
  for (let i = 0; i < count; i++)
    await call('/v1/orders', { userId: user.id, items: [{ productId: product.id, quantity: 1 }] });
}

async function restOrderIds(httpUrl: string, size: number): Promise<string[]> {
  const response = await fetch(`${httpUrl}/v1/orders?size=${size}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  return ((await response.json()) as { items: Array<{ id: number }> }).items.map((order) => String(order.id));
}

for (const persistedOnly of [false, true]) {
  describe(`Apollo Client against the server${persistedOnly ? ' in allow-list mode' : ''}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, GRAPHQL_PERSISTED_ONLY: String(persistedOnly) });
      await seedOrders(server.httpUrl, 7);
    });
    afterAll(() => server?.close());

    it('walks three pages with relayStylePagination() and loses none, each a persisted-query hit on the first request', async () => {
      const { client, sent } = apollo(server.httpUrl);
      const first = await client.query<OrderEdgesData>({ query: OrderEdges, variables: { first: 2 } });
      expect(first.data?.ordersConnection.pageInfo.hasPreviousPage).toBe(false);
      let after = first.data?.ordersConnection.pageInfo.endCursor;
      expect(after).toBeTruthy();
      for (let page = 2; page <= 3; page++) {
        const next = await client.query<OrderEdgesData>({
          query: OrderEdges,
          variables: { first: 2, after },
          fetchPolicy: 'network-only',
        });
        after = next.data?.ordersConnection.pageInfo.endCursor;
      }
      // The cache merged the three pages in order, with nothing dropped or repeated.
      const merged = client.readQuery<OrderEdgesData>({ query: OrderEdges, variables: { first: 2 } });
      const ids = merged?.ordersConnection.edges.map((edge) => edge.node.id);
      expect(ids).toEqual(await restOrderIds(server.httpUrl, 6));
      expect(merged?.ordersConnection.pageInfo.hasNextPage).toBe(true);

      // One HTTP request per page: the hash alone was known, the document was never sent.
      expect(sent).toHaveLength(3);
      for (const request of sent) {
        const body = JSON.parse(request.body ?? '{}') as { query?: string; extensions?: { persistedQuery?: unknown } };
        expect(body.query).toBeUndefined();
        expect(body.extensions?.persistedQuery).toBeDefined();
      }
    });
  });
}
