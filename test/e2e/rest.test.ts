import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { contractClient, type ProblemBody, recordingClient } from '../support/client.js';
import { checkedFetch, expectContract, type SeenResponse } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'rest-test-admin-key-0123456789';

let server: RunningServer;
let admin: ReturnType<typeof contractClient>;
let customerKey: string;
let customer: ReturnType<typeof contractClient>;
let customerId: number;
let otherKey: string;
let productId: number;
let scarceProductId: number;

const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const { key = ADMIN_KEY, headers, ...rest } = init;
  return checkedFetch(server.httpUrl, path, {
    ...rest,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(rest.body ? { 'content-type': 'application/json' } : {}),
      ...(headers as Record<string, string>),
    },
  });
};
const problem = (body: unknown) => body as ProblemBody;

/** POSTs a body to /v1/orders with node:http, which reads a response that arrives before the upload ends. */
function rawPost(body: string, withLength: boolean): Promise<SeenResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.httpUrl}/v1/orders`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        ...(withLength ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
      },
    });
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += chunk;
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers))
        if (typeof value === 'string') headers.set(name, value);
      // 'close' also comes when the server closes the connection after its early answer.
      response.on('close', () => resolve({ status: response.statusCode ?? 0, headers, text }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (let offset = 0; offset < body.length; offset += 100_000) request.write(body.slice(offset, offset + 100_000));
    request.end();
  });
}

async function newCustomer(name: string) {
  const user = await admin.POST('/v1/users', {
    body: {
      name,
      email: `${name.toLowerCase()}-${Date.now()}@example.com`,
      address: { zipCode: '04524', line1: '1 Road' },
    },
  });
  const id = user.data?.id as number;
  const key = await admin.POST('/v1/api-keys', { body: { userId: id, role: 'customer' } });
  return { id, key: key.data?.key as string };
}

async function placeOrder(client = customer, quantity = 1, extra: Record<string, unknown> = {}) {
  const { data, response } = await client.POST('/v1/orders', {
    body: { items: [{ productId, quantity }], ...extra },
  });
  expect(response.status).toBe(201);
  return data as NonNullable<typeof data>;
}

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  admin = contractClient(server.httpUrl, ADMIN_KEY);
  ({ id: customerId, key: customerKey } = await newCustomer('Alice'));
  ({ key: otherKey } = await newCustomer('Bob'));
  customer = contractClient(server.httpUrl, customerKey);
  const product = await admin.POST('/v1/products', {
    body: { name: 'Pour-over kettle', sku: 'KETTLE-1', price: 54.5, stock: 1000 },
  });
  productId = product.data?.id as number;
  const scarce = await admin.POST('/v1/products', { body: { name: 'Rare beans', sku: 'RARE-1', price: 20, stock: 1 } });
  scarceProductId = scarce.data?.id as number;
});
afterAll(() => server?.close());

describe('orders over REST', () => {
  it('creates an order: 201, Location, ETag, and the contract’s shape', async () => {
    const { data, response } = await customer.POST('/v1/orders', {
      body: { items: [{ productId, quantity: 2 }], note: 'ring twice' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/v1/orders/${data?.id}`);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(data).toMatchObject({ userId: customerId, amount: 109, status: 'PENDING', note: 'ring twice' });
  });

  it('replays a create with the same Idempotency-Key and refuses the key with another body', async () => {
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const body = JSON.stringify({ items: [{ productId, quantity: 1 }] });
    const first = await call('/v1/orders', { method: 'POST', body, headers, key: customerKey });
    const again = await call('/v1/orders', { method: 'POST', body, headers, key: customerKey });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await call('/v1/orders', {
      method: 'POST',
      body: JSON.stringify({ items: [{ productId, quantity: 3 }] }),
      headers,
      key: customerKey,
    });
    expect(other.status).toBe(422);
    expect(problem(other.body).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers 409 INSUFFICIENT_STOCK and leaves the stock as it was', async () => {
    const { response, error } = await customer.POST('/v1/orders', {
      body: { items: [{ productId: scarceProductId, quantity: 2 }] },
    });
    expect(response.status).toBe(409);
    expect((error as ProblemBody).code).toBe('INSUFFICIENT_STOCK');
    const ok = await customer.POST('/v1/orders', { body: { items: [{ productId: scarceProductId, quantity: 1 }] } });
    expect(ok.response.status).toBe(201);
  });

  it('serves ETags: 304 for If-None-Match, 412 for a stale If-Match', async () => {
    const order = await placeOrder();
    const etag = '"1"';
    const cached = await call(`/v1/orders/${order.id}`, { key: customerKey, headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    const patched = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      headers: { 'If-Match': etag, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ note: 'new note' }),
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    const stale = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      headers: { 'If-Match': etag },
      body: JSON.stringify({ note: 'lost update' }),
    });
    expect(stale.status).toBe(412);
    expect(problem(stale.body).code).toBe('PRECONDITION_FAILED');
  });

  it('follows the state machine: customers may cancel but not move forward', async () => {
    const order = await placeOrder();
    const forward = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      body: '{"status":"PAID"}',
    });
    expect([forward.status, problem(forward.body).code]).toEqual([403, 'FORBIDDEN']);
    expect((await call(`/v1/orders/${order.id}`, { method: 'PATCH', body: '{"status":"SHIPPED"}' })).status).toBe(200);
    const back = await call(`/v1/orders/${order.id}`, { method: 'PATCH', body: '{"status":"PAID"}' });
    expect([back.status, problem(back.body).code]).toEqual([409, 'INVALID_TRANSITION']);
    const shipment = await call(`/v1/orders/${order.id}/shipment`, { key: customerKey });
    expect(shipment.body).toMatchObject({ status: 'SHIPPED', orderId: order.id });
    const cancel = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      body: '{"status":"CANCELED"}',
    });
    expect(cancel.status).toBe(200);
    const repeat = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      body: '{"status":"CANCELED"}',
    });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('etag')).toBe(cancel.headers.get('etag'));
    const record = await call(`/v1/orders/${order.id}/cancellation`, { key: customerKey });
    expect(record.body).toMatchObject({ orderId: order.id, refundAmount: order.amount });
    const second = await call(`/v1/orders/${order.id}/cancellation`, { method: 'POST', key: customerKey, body: '{}' });
    expect([second.status, problem(second.body).code]).toEqual([409, 'ALREADY_CANCELED']);
  });

  it('writes a cancellation record with POST: 201 and Location', async () => {
    const order = await placeOrder();
    const created = await call(`/v1/orders/${order.id}/cancellation`, {
      method: 'POST',
      key: customerKey,
      body: JSON.stringify({ reason: 'found it cheaper' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/orders/${order.id}/cancellation`);
    expect(created.body).toMatchObject({ reason: 'found it cheaper', refundAmount: 0 });
  });

  it('hides other users’ orders as 404 and answers 404 for non-numeric ids', async () => {
    const order = await placeOrder();
    const foreign = await call(`/v1/orders/${order.id}`, { key: otherKey });
    expect([foreign.status, problem(foreign.body).code]).toEqual([404, 'ORDER_NOT_FOUND']);
    expect((await call('/v1/orders/abc')).status).toBe(404);
    expect((await call('/v1/orders/0')).status).toBe(404);
    expect((await call('/v1/orders/99999999999999999')).status).toBe(404);
    expect((await call('/v1/nowhere')).status).toBe(404);
  });

  it('PUT replaces: unsent note and coupon are cleared; a changed read-only member is refused', async () => {
    const order = await placeOrder(customer, 1, { note: 'keep?', couponCode: 'TEN' });
    const put = await call(`/v1/orders/${order.id}`, {
      method: 'PUT',
      key: customerKey,
      body: JSON.stringify({
        status: 'PENDING',
        shippingAddress: order.shippingAddress,
        id: order.id,
        amount: order.amount,
      }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ note: null, couponCode: null });
    const readOnly = await call(`/v1/orders/${order.id}`, {
      method: 'PATCH',
      key: customerKey,
      body: JSON.stringify({ amount: 0.01 }),
    });
    expect([readOnly.status, problem(readOnly.body).code]).toEqual([400, 'READ_ONLY_FIELD']);
    expect(problem(readOnly.body).errors).toEqual([expect.objectContaining({ in: 'body', name: '/amount' })]);
    const missing = await call(`/v1/orders/${order.id}`, {
      method: 'PUT',
      key: customerKey,
      body: '{"status":"PENDING"}',
    });
    expect([missing.status, problem(missing.body).code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('deletes PENDING orders for admins: 204, then 404', async () => {
    const order = await placeOrder();
    expect((await call(`/v1/orders/${order.id}`, { method: 'DELETE', key: customerKey })).status).toBe(403);
    expect((await call(`/v1/orders/${order.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/v1/orders/${order.id}`)).status).toBe(404);
  });

  it('adds amountDetail only on request, with supply + vat == total', async () => {
    const order = await placeOrder(customer, 3);
    const plain = await call(`/v1/orders/${order.id}`, { key: customerKey });
    expect(plain.body).not.toHaveProperty('amountDetail');
    const detailed = await call(`/v1/orders/${order.id}?include=amountDetail`, { key: customerKey });
    const detail = (detailed.body as { amountDetail: { supply: number; vat: number; total: number } }).amountDetail;
    expect(detail.total).toBe(163.5);
    expect(Math.round((detail.supply + detail.vat) * 100)).toBe(16_350);
    expect(detail.vat).toBe(14.86);
  });
});

describe('lists over REST', () => {
  beforeAll(async () => {
    for (let index = 0; index < 5; index++) await placeOrder(customer, 1, index % 2 ? { couponCode: 'TEN' } : {});
  });

  it('pages with cursors, cuts size to 100 and counts only on request', async () => {
    const { id: bulkUserId } = await newCustomer('Bulk');
    const bulk = { userId: bulkUserId, role: 'customer' as const, apiKeyId: null };
    for (let index = 0; index < 101; index++) {
      await server.core.orders.place(bulk, { items: [{ productId, quantity: 1 }] });
    }
    const big = await call(`/v1/orders?userId=${bulkUserId}&size=1000&withTotal=true`);
    expect(big.status).toBe(200);
    const page = big.body as { items: unknown[]; totalCount: number; hasNext: boolean };
    expect(page.items).toHaveLength(100);
    expect(page).toMatchObject({ hasNext: true, totalCount: 101 });
    const first = (await call('/v1/orders?size=2', { key: customerKey })).body as {
      nextCursor: string;
      items: Array<{ id: number }>;
    };
    const second = (await call(`/v1/orders?size=2&cursor=${first.nextCursor}`, { key: customerKey })).body as {
      items: Array<{ id: number }>;
    };
    expect(second.items.map((o) => o.id)).not.toContain(first.items[0]?.id);
    expect(first).not.toHaveProperty('totalCount');
  });

  it('refuses bad paging input with the documented codes', async () => {
    const cursor = (await call('/v1/orders?size=1')).body as { nextCursor: string };
    const mismatch = await call(`/v1/orders?size=1&status=PAID&cursor=${cursor.nextCursor}`);
    expect([mismatch.status, problem(mismatch.body).code]).toEqual([400, 'INVALID_CURSOR']);
    const size = await call('/v1/orders?size=0');
    expect([size.status, problem(size.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    const sort = await call('/v1/orders?sort=note');
    expect([sort.status, problem(sort.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    const unknown = await call('/v1/orders?page=2&limit=5');
    expect([unknown.status, problem(unknown.body).code]).toEqual([400, 'UNKNOWN_PARAMETER']);
    expect(
      problem(unknown.body)
        .errors?.map((e) => e.name)
        .sort(),
    ).toEqual(['limit', 'page']);
    const repeated = await call('/v1/orders?size=1&size=2');
    expect([repeated.status, problem(repeated.body).code]).toEqual([400, 'UNKNOWN_PARAMETER']);
  });

  it('filters by two states from openapi-fetch with its default settings (the repeated form)', async () => {
    const { client: plain, sent } = recordingClient(server.httpUrl, ADMIN_KEY);
    const { data, response } = await plain.GET('/v1/orders', {
      params: { query: { status: ['PAID', 'pending'], withTotal: true, size: 100 } },
    });
    expect(new URL(sent[0] as string).search).toContain('status=PAID&status=pending');
    expect(response.status).toBe(200);
    await expectContract('GET', sent[0] as string, {
      status: 200,
      headers: response.headers,
      text: JSON.stringify(data),
    });
    const comma = (await call('/v1/orders?status=PAID,PENDING&withTotal=true&size=100')).body as { totalCount: number };
    expect(data?.totalCount).toBe(comma.totalCount);
    expect(data?.totalCount).toBeGreaterThan(0);
    // A canceled order exists, so the two states are a strict part of all orders and the parts add up.
    const canceled = await placeOrder();
    await call(`/v1/orders/${canceled.id}`, { method: 'PATCH', body: '{"status":"CANCELED"}' });
    const total = async (query: string) =>
      ((await call(`/v1/orders?withTotal=true${query}`)).body as { totalCount: number }).totalCount;
    const [paidOrPending, rest, all] = [
      await total('&status=PAID,PENDING'),
      await total('&status=SHIPPED,DELIVERED,CANCELED'),
      await total(''),
    ];
    expect(rest).toBeGreaterThan(0);
    expect(paidOrPending + rest).toBe(all);
    for (const order of data?.items ?? []) expect(['PAID', 'PENDING']).toContain(order.status);
    // The same value twice, in two cases, counts once (the contract has no uniqueness rule to trip on).
    const twice = await call('/v1/orders?status=paid&status=PAID&withTotal=true');
    expect(twice.status).toBe(200);
  });

  it('accepts status in any case and filters by coupon', async () => {
    const lower = await call('/v1/orders?status=pending,paid&size=100', { key: customerKey });
    const upper = await call('/v1/orders?status=PAID,PENDING&size=100', { key: customerKey });
    const mixed = await call('/v1/orders?status=Pending&size=100', { key: customerKey });
    expect(lower.status).toBe(200);
    expect(lower.body).toEqual(upper.body);
    const states = (body: unknown) =>
      new Set((body as { items: Array<{ status: string }> }).items.map((o) => o.status));
    expect([...states(mixed.body)]).toEqual(['PENDING']);
    const bad = await call('/v1/orders?status=LOST');
    expect(bad.status).toBe(400);
    const coupons = (await call('/v1/orders?hasCoupon=true&size=100', { key: customerKey })).body as {
      items: Array<{ couponCode: string | null }>;
    };
    const all = (await call('/v1/orders?size=100', { key: customerKey })).body as {
      items: Array<{ couponCode: string | null }>;
    };
    // The customer has orders with and without a coupon, so an ignored filter shows.
    expect(all.items.some((o) => o.couponCode === null)).toBe(true);
    expect(coupons.items.length).toBeGreaterThan(0);
    expect(coupons.items).toEqual(all.items.filter((o) => o.couponCode !== null));
  });

  it('lists newest first by default (-createdAt, then -id), as the contract says', async () => {
    const first = await placeOrder();
    const second = await placeOrder();
    const page = (await call('/v1/orders?size=100', { key: customerKey })).body as {
      items: Array<{ id: number; createdAt: string }>;
    };
    expect(page.items.slice(0, 2).map((o) => o.id)).toEqual([second.id, first.id]);
    const keys = page.items.map((o) => [Date.parse(o.createdAt), o.id] as const);
    const sorted = [...keys].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    expect(keys.length).toBeGreaterThan(2);
    expect(keys).toEqual(sorted);
  });

  it('gives the same page and cursors for POST /v1/orders/search as for the query form', async () => {
    const query = await call('/v1/orders?status=PENDING&hasCoupon=false&size=2&sort=-amount', { key: customerKey });
    const search = await call('/v1/orders/search', {
      method: 'POST',
      key: customerKey,
      body: JSON.stringify({ status: ['pending'], hasCoupon: false, size: 2, sort: '-amount' }),
    });
    expect(search.status).toBe(200);
    expect(search.body).toEqual(query.body);
    const next = (query.body as { nextCursor: string }).nextCursor;
    const continued = await call('/v1/orders/search', {
      method: 'POST',
      key: customerKey,
      body: JSON.stringify({ status: ['PENDING'], hasCoupon: false, size: 2, sort: '-amount', cursor: next }),
    });
    expect(continued.status).toBe(200);
  });

  it('pages order items, users and products in the same envelope', async () => {
    const order = await placeOrder();
    const items = await call(`/v1/orders/${order.id}/items?size=1`, { key: customerKey });
    expect(items.body).toMatchObject({ hasNext: false, items: [{ orderId: order.id }] });
    const item = await call(`/v1/order-items/${order.items[0]?.id}`, { key: customerKey });
    expect(item.body).toMatchObject({ id: order.items[0]?.id });
    expect((await call('/v1/users?sort=name')).status).toBe(200);
    const forbidden = await call('/v1/users', { key: customerKey });
    expect([forbidden.status, problem(forbidden.body).code]).toEqual([403, 'FORBIDDEN']);
    const products = await call('/v1/products?size=1', { key: null });
    expect(products.body).toMatchObject({ hasNext: true });
  });
});

describe('the rest of the order and user operations', () => {
  it('reads one user: admins anyone, customers only themselves', async () => {
    const own = await call(`/v1/users/${customerId}`, { key: customerKey });
    expect(own.body).toMatchObject({ id: customerId, name: 'Alice' });
    const viaAdmin = await call(`/v1/users/${customerId}`);
    expect(viaAdmin.status).toBe(200);
    const foreign = await call(`/v1/users/${customerId}`, { key: otherKey });
    expect([foreign.status, problem(foreign.body).code]).toEqual([404, 'USER_NOT_FOUND']);
  });

  it('sets carrier data on a shipment (admins), which exists only once the order is paid', async () => {
    const order = await placeOrder();
    const early = await call(`/v1/orders/${order.id}/shipment`, { method: 'PATCH', body: '{"carrier":"DHL"}' });
    expect([early.status, problem(early.body).code]).toEqual([404, 'SHIPMENT_NOT_FOUND']);
    await call(`/v1/orders/${order.id}`, { method: 'PATCH', body: '{"status":"PAID"}' });
    const denied = await call(`/v1/orders/${order.id}/shipment`, {
      method: 'PATCH',
      key: customerKey,
      body: '{"carrier":"DHL"}',
    });
    expect(denied.status).toBe(403);
    const set = await call(`/v1/orders/${order.id}/shipment`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ carrier: 'DHL', trackingNumber: 'JD0146' }),
    });
    expect(set.body).toMatchObject({ status: 'PREPARING', carrier: 'DHL', trackingNumber: 'JD0146' });
    const cleared = await call(`/v1/orders/${order.id}/shipment`, { method: 'PATCH', body: '{"trackingNumber":null}' });
    expect(cleared.body).toMatchObject({ carrier: 'DHL', trackingNumber: null });
  });

  it('filters by user, dates, amount and text', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const all = (await call(`/v1/orders?userId=${customerId}&withTotal=true`)).body as { totalCount: number };
    const dated = (await call(`/v1/orders?userId=${customerId}&from=${today}&to=${today}&withTotal=true`)).body as {
      totalCount: number;
    };
    expect(dated.totalCount).toBe(all.totalCount);
    const past = (await call(`/v1/orders?to=2000-01-01&withTotal=true`)).body as { totalCount: number };
    expect(past.totalCount).toBe(0);
    const badDate = await call('/v1/orders?from=yesterday');
    expect([badDate.status, problem(badDate.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    type Counted = { totalCount: number; items: Array<{ amount: number }> };
    const big = (await call('/v1/orders?minAmount=100&size=100&withTotal=true')).body as Counted;
    const every = (await call('/v1/orders?withTotal=true')).body as Counted;
    // Orders exist on both sides of the bound, so a filter that is ignored or inverted shows.
    expect(big.items.length).toBeGreaterThan(0);
    expect(big.totalCount).toBeLessThan(every.totalCount);
    for (const order of big.items) expect(order.amount).toBeGreaterThanOrEqual(100);
    // Text search: one order of a product no other order has, found by its name and by its note only.
    const tray = await admin.POST('/v1/products', {
      body: { name: 'Walnut serving tray', sku: `TRAY-${Date.now()}`, price: 30, stock: 10 },
    });
    const { data: trayOrder } = await customer.POST('/v1/orders', {
      body: { items: [{ productId: tray.data?.id as number, quantity: 1 }], note: 'Leave at the blue door' },
    });
    const ids = async (q: string) =>
      (
        (await call(`/v1/orders?q=${encodeURIComponent(q)}&size=100`)).body as { items: Array<{ id: number }> }
      ).items.map((order) => order.id);
    expect(await ids('WALNUT')).toEqual([trayOrder?.id]);
    expect(await ids('blue door')).toEqual([trayOrder?.id]);
    expect(await ids('no order mentions this')).toEqual([]);
    const kettles = (await call('/v1/orders?q=KETTLE&withTotal=true&size=100')).body as {
      totalCount: number;
      items: Array<{ id: number; items: Array<{ productId: number }> }>;
    };
    expect(kettles.totalCount).toBeGreaterThan(0);
    expect(kettles.items.map((order) => order.id)).not.toContain(trayOrder?.id);
    for (const order of kettles.items) expect(order.items.map((item) => item.productId)).toContain(productId);
    const customerForeign = (await call('/v1/orders?userId=1&withTotal=true', { key: customerKey })).body as {
      totalCount: number;
    };
    expect(customerForeign.totalCount).toBe(0);
  });
});

describe('HTTP semantics', () => {
  it('answers 401 with WWW-Authenticate without a key or with a wrong one', async () => {
    const none = await call('/v1/orders', { key: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await call('/v1/orders', { key: 'oak_not-a-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('answers 405 with Allow, 406, 415, 413 and malformed JSON as documented', async () => {
    const method = await call('/v1/orders/search', { method: 'DELETE' });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('POST');
    const notAcceptable = await call('/v1/orders', { headers: { accept: 'text/csv' } });
    expect([notAcceptable.status, problem(notAcceptable.body).code]).toEqual([406, 'NOT_ACCEPTABLE']);
    const unsupported = await call('/v1/orders', {
      method: 'POST',
      body: 'items=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect([unsupported.status, problem(unsupported.body).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // Too large bodies are answered 413 as soon as that is known (before the upload ends), so read them
    // with a raw client that tolerates the server closing its side: with a Content-Length, and chunked.
    const declared = await rawPost(JSON.stringify({ note: 'x'.repeat(1_100_000) }), true);
    expect(declared.status).toBe(413);
    expect(await expectContract('POST', '/v1/orders', declared)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const chunked = await rawPost('x'.repeat(2_000_000), false);
    expect(chunked.status).toBe(413);
    expect(await expectContract('POST', '/v1/orders', chunked)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const malformed = await call('/v1/orders', { method: 'POST', body: '{"items": [' });
    expect([malformed.status, problem(malformed.body).code]).toEqual([400, 'MALFORMED_JSON']);
  });

  it('lists every violation, and names unknown body members UNKNOWN_FIELD', async () => {
    const many = await call('/v1/orders', {
      method: 'POST',
      body: JSON.stringify({ items: [{ productId: 'x', quantity: 0 }], note: 5 }),
    });
    expect(many.status).toBe(400);
    expect(
      problem(many.body)
        .errors?.map((e) => e.name)
        .sort(),
    ).toEqual(['/items/0/productId', '/items/0/quantity', '/note']);
    const unknown = await call('/v1/orders', {
      method: 'POST',
      body: JSON.stringify({ items: [{ productId, quantity: 1 }], gift: true }),
    });
    expect([unknown.status, problem(unknown.body).code]).toEqual([400, 'UNKNOWN_FIELD']);
  });

  it('serves /health with the database check', async () => {
    const health = await checkedFetch(server.httpUrl, '/health');
    expect(health.body).toEqual({ status: 'ok', checks: { database: 'ok', serving: 'ok' } });
  });
});

describe('users, products, ratings, drafts and keys over REST', () => {
  it('answers /users/me for the caller and records lastLoginAt', async () => {
    const me = await customer.GET('/v1/users/me');
    expect(me.data).toMatchObject({ id: customerId, lastLoginAt: expect.any(String) });
    const etag = me.response.headers.get('etag') as string;
    expect((await call('/v1/users/me', { key: customerKey, headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('PATCHes and PUTs users; PUT clears what it does not send', async () => {
    const { id, key } = await newCustomer('Carol');
    const patched = await call(`/v1/users/${id}`, {
      method: 'PATCH',
      key,
      body: JSON.stringify({ nickname: 'caro', phone: '+1 555' }),
    });
    expect(patched.body).toMatchObject({ nickname: 'caro', phone: '+1 555' });
    const put = await call(`/v1/users/${id}`, {
      method: 'PUT',
      key,
      body: JSON.stringify({ name: 'Carol C', email: `carol-${id}@example.com` }),
    });
    expect(put.body).toMatchObject({ name: 'Carol C', nickname: null, phone: null, address: null });
    const taken = await call(`/v1/users/${id}`, {
      method: 'PATCH',
      key,
      body: JSON.stringify({ email: 'admin@order-api.invalid' }),
    });
    expect([taken.status, problem(taken.body).code]).toEqual([409, 'EMAIL_TAKEN']);
    expect((await call(`/v1/users/${id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(`/v1/users/${customerId}`, { method: 'DELETE' })).status).toBe(409);
  });

  it('rates a product: 201 first, 200 after, and the average follows', async () => {
    const first = await call(`/v1/products/${productId}/ratings/me`, {
      method: 'PUT',
      key: customerKey,
      body: '{"score":5}',
    });
    expect(first.status).toBe(201);
    const again = await call(`/v1/products/${productId}/ratings/me`, {
      method: 'PUT',
      key: customerKey,
      body: '{"score":3}',
    });
    expect(again.status).toBe(200);
    await call(`/v1/products/${productId}/ratings/me`, { method: 'PUT', key: otherKey, body: '{"score":4}' });
    const rating = await call(`/v1/products/${productId}/rating`, { key: null });
    expect(rating.body).toEqual({ productId, average: 3.5, count: 2 });
    expect(((await call(`/v1/products/${productId}`, { key: null })).body as { rating: number }).rating).toBe(3.5);
  });

  it('places an order from a draft once', async () => {
    const draft = await call('/v1/order-drafts', {
      method: 'POST',
      key: customerKey,
      body: JSON.stringify({ items: [{ productId, quantity: 2 }] }),
    });
    expect(draft.status).toBe(201);
    const draftId = (draft.body as { id: number }).id;
    const placed = await call('/v1/orders', { method: 'POST', key: customerKey, body: JSON.stringify({ draftId }) });
    expect(placed.status).toBe(201);
    const again = await call('/v1/orders', { method: 'POST', key: customerKey, body: JSON.stringify({ draftId }) });
    expect([again.status, problem(again.body).code]).toEqual([409, 'DRAFT_ALREADY_ORDERED']);
    expect((await call(`/v1/order-drafts/${draftId}`, { key: customerKey })).body).toMatchObject({ status: 'ORDERED' });
  });

  it('issues keys once and revokes them', async () => {
    const issued = await call('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ userId: customerId, role: 'customer' }),
    });
    expect(issued.status).toBe(201);
    const { id, key } = issued.body as { id: number; key: string };
    expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE', key: customerKey })).status).toBe(403);
    expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call('/v1/users/me', { key })).status).toBe(401);
  });

  it('lets only admins create products', async () => {
    const denied = await call('/v1/products', {
      method: 'POST',
      key: customerKey,
      body: JSON.stringify({ name: 'X', sku: 'X-1', price: 1 }),
    });
    expect([denied.status, problem(denied.body).code]).toEqual([403, 'FORBIDDEN']);
    const cents = await call('/v1/products', {
      method: 'POST',
      body: JSON.stringify({ name: 'X', sku: 'X-2', price: 1.005 }),
    });
    expect(cents.status).toBe(400);
  });
});
