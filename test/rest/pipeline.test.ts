/**
 * The REST pipeline's mapping, in process (`app.request()`, no socket): each step answers its own failure
 * with the documented problem, a domain error from a handler and an unexpected failure go through
 * `onError`, and the matched operation is the route label the edge reads. Every answer is checked against
 * contracts/openapi.yaml.
 */
import path from 'node:path';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/core/ports/index.js';
import { requestIdAndEdgeHeaders } from '../../src/http/edge-headers.js';
import '../../src/http/context-variables.js';
import { problemOnError } from '../../src/http/problem.js';
import { readRestContract } from '../../src/rest/contract.js';
import { createRestApp } from '../../src/rest/create-rest-app.js';
import { expectContract, see } from '../support/contract.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin } from '../support/fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
let database: TestDatabase;
let app: Hono;
let adminKey = '';
const routes: string[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  // Listing orders that match "explode" fails unexpectedly: a store fault, not a domain error.
  const store: Store = {
    ...database.store,
    orders: {
      ...database.store.orders,
      list: (query) =>
        query.filters.q === 'explode' ? Promise.reject(new Error('disk on fire')) : database.store.orders.list(query),
    },
  };
  const core = await testCore(store);
  const admin = await makeAdmin(database.store);
  adminKey = (await core.apiKeys.issue(admin, { userId: admin.userId, role: 'admin' })).secret;
  app = new Hono();
  app.use('*', requestIdAndEdgeHeaders());
  app.use('*', async (c, next) => {
    await next();
    routes.push(c.get('route') ?? 'none');
  });
  const contract = await readRestContract(root);
  const onError = problemOnError(pino({ level: 'silent' }));
  app.onError(onError);
  app.route('/v1', createRestApp({ contract, core, onError }));
});
afterAll(() => database?.close());

async function call(
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string; key?: boolean } = {},
) {
  const headers = { ...(init.key === false ? {} : { authorization: `Bearer ${adminKey}` }), ...init.headers };
  const seen = await see(await app.request(url, { method, headers, ...(init.body ? { body: init.body } : {}) }));
  const body = (await expectContract(method, url, seen)) as Record<string, any> | undefined;
  return { status: seen.status, headers: seen.headers, body };
}

describe('the REST pipeline in process', () => {
  it('answers each step’s failure with its documented problem', async () => {
    expect(await call('GET', '/v1/orders/abc')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const wrongMethod = await call('DELETE', '/v1/orders');
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST, HEAD');
    expect(await call('GET', '/v1/orders', { headers: { accept: 'text/html' } })).toMatchObject({
      status: 406,
      body: { code: 'NOT_ACCEPTABLE' },
    });
    const anonymous = await call('GET', '/v1/orders', { key: false });
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="order-api"');
    expect(await call('GET', '/v1/orders?bogus=1')).toMatchObject({ status: 400, body: { code: 'UNKNOWN_PARAMETER' } });
    const json = { 'content-type': 'application/json' };
    expect(await call('POST', '/v1/users', { headers: { 'content-type': 'text/plain' }, body: 'hello' })).toMatchObject(
      {
        status: 415,
        body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
      },
    );
    expect(await call('POST', '/v1/users', { headers: json, body: '{"name":' })).toMatchObject({
      status: 400,
      body: { code: 'MALFORMED_JSON' },
    });
    const invalid = await call('POST', '/v1/users', { headers: json, body: '{}' });
    expect(invalid).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(invalid.body?.errors.length).toBeGreaterThan(0);
  });

  it('lets open operations through without a key, and maps domain and unexpected errors in onError', async () => {
    expect(await call('GET', '/v1/products', { key: false })).toMatchObject({ status: 200 });
    expect(await call('GET', '/v1/orders/999999')).toMatchObject({ status: 404, body: { code: 'ORDER_NOT_FOUND' } });
    const failed = await call('GET', '/v1/orders?q=explode');
    expect(failed).toMatchObject({ status: 500, body: { code: 'INTERNAL' } });
    expect(failed.body?.detail).not.toContain('disk on fire');
    expect(failed.body?.requestId).toEqual(failed.headers.get('x-request-id'));
  });

  it('names the matched operation as the route of metrics and logs', async () => {
    routes.length = 0;
    await call('GET', '/v1/orders');
    await call('GET', '/v1/nothing-here');
    expect(routes).toEqual(['listOrders', 'none']);
  });
});
