/**
 * One core behind three interfaces: the same failure gives the same catalog code over REST, GraphQL and
 * gRPC. Every scenario names the code it expects and the wire status of each interface, so a transport
 * that answers with nothing (or with another code) fails here instead of agreeing with its neighbour.
 */
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { RunningServer } from '../../src/main.js';
import { contractClient, type ProblemBody } from '../support/client.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'parity-test-admin-key-0123456789';
let server: RunningServer;
let inventory: ReturnType<typeof createClient<typeof Inventory>>;
let customerKey: string;
let productId: number;
let scarceId: number;
let pendingId: number;
let canceledId: number;

type GraphQLAnswer = { status: number; code: string | undefined; data: unknown };
type RestAnswer = { status: number; code: string | undefined };
type GrpcAnswer = { code: Code | 'OK'; reason: string | undefined };

async function graphql(query: string, key: string = ADMIN_KEY): Promise<GraphQLAnswer> {
  const response = await fetch(`${server.httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code, data: body.data };
}

async function rest(path: string, init: RequestInit & { key?: string } = {}): Promise<RestAnswer> {
  const { key = ADMIN_KEY, ...rest } = init;
  const seen = await checkedFetch(server.httpUrl, path, {
    ...rest,
    headers: { authorization: `Bearer ${key}`, ...(rest.body ? { 'content-type': 'application/json' } : {}) },
  });
  return { status: seen.status, code: (seen.body as ProblemBody | undefined)?.code };
}

async function grpc(call: () => Promise<unknown>): Promise<GrpcAnswer> {
  try {
    await call();
    return { code: 'OK', reason: undefined };
  } catch (error) {
    const failure = ConnectError.from(error);
    return { code: failure.code, reason: failure.findDetails(ErrorInfoSchema)[0]?.reason };
  }
}

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  inventory = createClient(Inventory, createGrpcTransport({ baseUrl: server.grpcUrl }));
  const admin = contractClient(server.httpUrl, ADMIN_KEY);
  const user = await admin.POST('/v1/users', {
    body: { name: 'Parity', email: 'parity@example.com', address: { zipCode: '1', line1: 'Main St' } },
  });
  const customerId = user.data?.id as number;
  customerKey = (await admin.POST('/v1/api-keys', { body: { userId: customerId, role: 'customer' } })).data
    ?.key as string;
  productId = (await admin.POST('/v1/products', { body: { name: 'Dripper', sku: 'PAR-1', price: 29, stock: 5000 } }))
    .data?.id as number;
  scarceId = (await admin.POST('/v1/products', { body: { name: 'Rare', sku: 'PAR-2', price: 9, stock: 1 } })).data
    ?.id as number;
  const order = () => admin.POST('/v1/orders', { body: { userId: customerId, items: [{ productId, quantity: 1 }] } });
  pendingId = (await order()).data?.id as number;
  canceledId = (await order()).data?.id as number;
  await admin.PATCH('/v1/orders/{orderId}', {
    params: { path: { orderId: canceledId } },
    body: { status: 'CANCELED' },
  });
});
afterAll(() => server?.close());

interface Scenario {
  name: string;
  code: string;
  rest: { status: number; call: () => Promise<RestAnswer> };
  /** GraphQL answers domain errors in a 200 with `errors[]`; authentication failures as HTTP 401. */
  graphql: { status: number; call: () => Promise<GraphQLAnswer> };
  /** Only for scenarios the internal Inventory service has (it takes no caller, so no 401 or 403). */
  grpc?: { code: Code; call: () => Promise<GrpcAnswer> };
}

const scenarios: Scenario[] = [
  {
    name: 'an order that does not exist',
    code: 'ORDER_NOT_FOUND',
    rest: { status: 404, call: () => rest('/v1/orders/999999') },
    graphql: { status: 200, call: () => graphql('{ order(id: "999999") { id } }') },
  },
  {
    name: 'a product that does not exist',
    code: 'PRODUCT_NOT_FOUND',
    rest: { status: 404, call: () => rest('/v1/products/999999') },
    graphql: { status: 200, call: () => graphql('{ product(id: "999999") { id } }') },
  },
  {
    name: 'a customer setting a status only admins may set',
    code: 'FORBIDDEN',
    rest: {
      status: 403,
      call: () => rest(`/v1/orders/${pendingId}`, { method: 'PATCH', key: customerKey, body: '{"status":"PAID"}' }),
    },
    graphql: {
      status: 200,
      call: () => graphql(`mutation { updateOrder(id: "${pendingId}", input: { status: PAID }) { id } }`, customerKey),
    },
  },
  {
    name: 'more than the stock holds',
    code: 'INSUFFICIENT_STOCK',
    rest: {
      status: 409,
      call: () =>
        rest('/v1/orders', {
          method: 'POST',
          key: customerKey,
          body: JSON.stringify({ items: [{ productId: scarceId, quantity: 5 }] }),
        }),
    },
    graphql: {
      status: 200,
      call: () =>
        graphql(
          `mutation { createOrder(input: { items: [{ productId: "${scarceId}", quantity: 5 }] }) { id } }`,
          customerKey,
        ),
    },
    grpc: {
      code: Code.FailedPrecondition,
      call: () => grpc(() => inventory.reserve({ orderId: '880001', sku: 'PAR-2', quantity: 5 })),
    },
  },
  {
    // Refused by the order line's bound alone (1 to 1000 units): the product holds enough for it.
    name: 'an order line past 1000 units',
    code: 'VALIDATION_FAILED',
    rest: {
      status: 400,
      call: () =>
        rest('/v1/orders', {
          method: 'POST',
          key: customerKey,
          body: JSON.stringify({ items: [{ productId, quantity: 1001 }] }),
        }),
    },
    graphql: {
      status: 200,
      call: () =>
        graphql(
          `mutation { createOrder(input: { items: [{ productId: "${productId}", quantity: 1001 }] }) { id } }`,
          customerKey,
        ),
    },
  },
  {
    // Refused by the SKU's pattern alone: without it REST and GraphQL would create the product and gRPC
    // would answer that no such SKU is stocked.
    name: 'a SKU outside its pattern',
    code: 'VALIDATION_FAILED',
    rest: {
      status: 400,
      call: () =>
        rest('/v1/products', { method: 'POST', body: JSON.stringify({ name: 'Odd', sku: 'ODD SKU!', price: 1 }) }),
    },
    graphql: {
      status: 200,
      call: () => graphql('mutation { createProduct(input: { name: "Odd", sku: "ODD SKU!", price: 1 }) { id } }'),
    },
    grpc: {
      code: Code.InvalidArgument,
      call: () => grpc(() => inventory.reserve({ orderId: '880002', sku: 'ODD SKU!', quantity: 1 })),
    },
  },
  {
    name: 'a page size of zero',
    code: 'VALIDATION_FAILED',
    rest: { status: 400, call: () => rest('/v1/orders?size=0') },
    graphql: { status: 200, call: () => graphql('{ orders(first: 0) { id } }') },
  },
  {
    name: 'a canceled order moved on',
    code: 'INVALID_TRANSITION',
    rest: { status: 409, call: () => rest(`/v1/orders/${canceledId}`, { method: 'PATCH', body: '{"status":"PAID"}' }) },
    graphql: {
      status: 200,
      call: () => graphql(`mutation { updateOrder(id: "${canceledId}", input: { status: PAID }) { id } }`),
    },
  },
  {
    name: 'a wrong API key',
    code: 'UNAUTHENTICATED',
    rest: { status: 401, call: () => rest('/v1/orders', { key: 'oak_wrong' }) },
    graphql: { status: 401, call: () => graphql('{ me { id } }', 'oak_wrong') },
  },
];

describe('one core behind REST, GraphQL and gRPC', () => {
  for (const scenario of scenarios) {
    it(`answers ${scenario.name} with ${scenario.code} on every interface`, async () => {
      expect(await scenario.rest.call()).toEqual({ status: scenario.rest.status, code: scenario.code });
      const viaGraphql = await scenario.graphql.call();
      expect({ status: viaGraphql.status, code: viaGraphql.code }).toEqual({
        status: scenario.graphql.status,
        code: scenario.code,
      });
      if (scenario.grpc) {
        expect(await scenario.grpc.call()).toEqual({ code: scenario.grpc.code, reason: scenario.code });
      }
    });
  }
});
