import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createMetrics } from '../../src/http/metrics.js';
import { createRestApp } from '../../src/rest/create-rest-app.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';

// Nothing is deprecated in v1 yet, so the machinery is proven on a fixture: the real contract with one
// operation and one parameter marked deprecated (docs/decisions.md §7).
let root: string;
let database: TestDatabase;
let app: Hono;
const metrics = createMetrics();

beforeAll(async () => {
  const contract = parse(await readFile(path.resolve(import.meta.dirname, '../../contracts/openapi.yaml'), 'utf8'));
  contract.paths['/v1/products'].get.deprecated = true;
  contract.paths['/v1/products'].get['x-sunset'] = '2027-06-30';
  contract.paths['/v1/products/{productId}'].get.parameters = [
    { name: 'lang', in: 'query', deprecated: true, schema: { type: 'string' }, description: 'Retired.' },
  ];
  root = await mkdtemp(path.join(tmpdir(), 'deprecation-'));
  await mkdir(path.join(root, 'contracts'));
  await writeFile(path.join(root, 'contracts/openapi.yaml'), stringify(contract));
  database = await openTestDatabase();
  const core = await testCore(database.store);
  await core.products.create({ userId: 1, role: 'admin', apiKeyId: null }, { name: 'Mug', sku: 'MUG', price: 100 });
  app = new Hono();
  app.use('*', requestId());
  app.route('/v1', await createRestApp({ projectRoot: root, core, logger: pino({ level: 'silent' }), metrics }));
});
afterAll(async () => {
  await database?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('deprecation signals read from the contract', () => {
  it('marks a deprecated operation with Deprecation, Sunset and Link', async () => {
    const response = await app.request('/v1/products');
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toMatch(/rel="deprecation"/);
  });

  it('marks a request that uses a deprecated parameter, and only that request', async () => {
    const used = await app.request('/v1/products/1?lang=en');
    expect(used.status).toBe(200);
    expect(used.headers.get('deprecation')).toBe('true');
    expect(used.headers.get('sunset')).toBeNull();
    const unused = await app.request('/v1/products/1');
    expect(unused.headers.get('deprecation')).toBeNull();
  });

  it('counts each use per item, key and client, for the retirement measurements of docs/decisions.md §7', async () => {
    await app.request('/v1/products', { headers: { 'user-agent': 'shop-app/2.3.1 (ios)' } });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/deprecated_usage_total\{item="listProducts",key="anonymous",client="shop-app\/2.3.1"\} 1/);
    expect(text).toMatch(/deprecated_usage_total\{item="getProduct\?lang",key="anonymous",client="unknown"\} 1/);
  });
});
