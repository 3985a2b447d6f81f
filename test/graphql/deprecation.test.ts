import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';
import { graphqlEndpoint } from '../support/graphql.js';

// Nothing is deprecated in v1 yet: the counting is proven on a fixture schema with `Order.note` deprecated.
const root = path.resolve(import.meta.dirname, '../..');
const fixture = mkdtempSync(path.join(tmpdir(), 'graphql-deprecation-'));
const metrics = createMetrics();
let database: TestDatabase;
let run: Awaited<ReturnType<typeof graphqlEndpoint>>;
let key: string;

beforeAll(async () => {
  const schema = readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8').replace(
    /\n(\s*)note: String\n/,
    '\n$1note: String @deprecated(reason: "Use notes instead; sunset 2027-06-30")\n',
  );
  mkdirSync(path.join(fixture, 'contracts'));
  writeFileSync(path.join(fixture, 'contracts/schema.graphql'), schema);
  cpSync(path.join(root, 'generated'), path.join(fixture, 'generated'), { recursive: true });
  database = await openTestDatabase();
  const core = await testCore(database.store);
  const admin = await makeAdmin(database.store);
  const customer = await makeCustomer(core, admin);
  const product = await makeProduct(core, admin);
  await core.orders.place(customer, { items: [{ productId: product.id, quantity: 1 }] });
  key = (await core.apiKeys.issue(admin, { userId: customer.userId, role: 'customer' })).secret;
  run = await graphqlEndpoint(core, {}, { projectRoot: fixture, metrics });
});
afterAll(async () => {
  await database?.close();
  rmSync(fixture, { recursive: true, force: true });
});

describe('deprecated GraphQL fields', () => {
  it('are counted per item, key and client when selected, and only then', async () => {
    expect((await run('{ orders(first: 1) { id } }', { key })).body.errors).toBeUndefined();
    expect((await metrics.registry.metrics()).includes('item="Order.note"')).toBe(false);
    const result = await run('{ orders(first: 1) { id note } }', { key });
    expect(result.body.data?.orders).toHaveLength(1);
    expect(await metrics.registry.metrics()).toMatch(
      /deprecated_usage_total\{item="Order\.note",key="\d+",client="unknown"\} 1/,
    );
  });
});
