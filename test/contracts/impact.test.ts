/**
 * `npm run contracts:impact` on fixtures: the released side deprecates `Order.note` (GraphQL),
 * `ProductRating.count` (a REST response property) and `AdjustStockRequest.reason` (proto); the working
 * side removes all three (the proto field retired with `reserved`, which buf lets through). Each is
 * reported with what it breaks and, from a usage database, with the callers who used it.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { impactTable } from '@order-api/contract-gate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { openDatabase } from '../../src/store/open.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { testCore } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { makeAdmin } from '../support/fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
const fixture = deprecationFixture();
const base = path.join(fixture.root, 'contracts');
const scratch = mkdtempSync(path.join(tmpdir(), 'impact-'));
const head = path.join(scratch, 'head');
const dataDir = path.join(scratch, 'data');
let shopKeyId = 0;
/** The JSON report of the first test, which the table test renders. */
let json: { impacts: Array<Record<string, any>>; unattributedOperations: string[] };

beforeAll(async () => {
  cpSync(base, head, { recursive: true });
  const sdl = path.join(head, 'schema.graphql');
  writeFileSync(
    sdl,
    readFileSync(sdl, 'utf8').replace(/\n\s*"A note from the customer."\n\s*note: String @deprecated\([^)]*\)\n/, '\n'),
  );
  const openapiFile = path.join(head, 'openapi.yaml');
  const openapi = parse(readFileSync(openapiFile, 'utf8'));
  const rating = openapi.components.schemas.ProductRating;
  delete rating.properties.count;
  rating.required = (rating.required ?? []).filter((name: string) => name !== 'count');
  writeFileSync(openapiFile, stringify(openapi));
  const protoFile = path.join(head, 'inventory/v1/inventory.proto');
  writeFileSync(
    protoFile,
    readFileSync(protoFile, 'utf8').replace(
      /\n(\s*)\/\/ Why the stock changed.*\n\s*string reason = 3 \[deprecated = true[^\]]*\];/,
      '\n$1reserved 3;\n$1reserved "reason";',
    ),
  );

  // The usage database: shop-web used the GraphQL field and the REST property; a gRPC caller sent `reason`.
  const { db } = await openDatabase({ dataDir });
  const store = createSqlStore(db);
  const core = await testCore(store);
  const admin = await makeAdmin(store);
  const user = (
    await core.users.create(admin, {
      name: 'Ann Web',
      email: 'ann@shops.example.com',
      address: { zipCode: '04524', line1: '1 Road', line2: null },
    })
  ).result;
  const issued = await core.apiKeys.issue(admin, { userId: user.id, role: 'customer' });
  shopKeyId = issued.apiKey.id;
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const row = (item: string, apiKeyId: number, client: string, count: number) => ({
    item,
    apiKeyId,
    client,
    kind: 'use' as const,
    day,
    count,
    firstSeen: now,
    lastSeen: now,
  });
  await store.usage.add(
    [
      row('graphql.Order.note', shopKeyId, 'shop-web/3.2.1', 12),
      row('rest.ProductRating.count', shopKeyId, 'shop-web/3.2.1', 5),
      row('grpc.inventory.v1.AdjustStockRequest.reason', 0, 'stock-sync/1.4.0', 3),
    ],
    { instance: 'impact-test', at: now },
  );
  await db.close();
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  fixture.remove();
});

async function impact(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'packages/contract-gate/src/cli/impact.ts', '--base', base, '--head', head, ...args],
      { cwd: root, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' } },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('contracts:impact', () => {
  it('reports each removed item with what it breaks and who used it, and exits 1', async () => {
    const { code, output } = await impact('--json');
    expect(code).toBe(1);
    json = JSON.parse(output);
    const { impacts } = json;
    const find = (registryId: string) => impacts.find((entry) => entry.registryIds.includes(registryId));

    const note = find('graphql.Order.note');
    expect(note).toMatchObject({
      contract: 'graphql',
      item: 'Order.note',
      persistedOperations: ['OrderDetail.graphql', 'UpdateOrder.graphql'],
    });
    expect(note?.callers).toEqual([
      expect.objectContaining({
        apiKeyId: shopKeyId,
        owner: 'Ann Web',
        email: 'ann@shops.example.com',
        clients: ['shop-web/3.2.1'],
        uses: 12,
      }),
    ]);

    const count = find('rest.ProductRating.count');
    expect(count).toMatchObject({ contract: 'openapi' });
    expect(count?.restOperations.length).toBeGreaterThan(0);
    expect(
      count?.restOperations.every((operation: string) => /^(GET|POST|PUT|PATCH|DELETE) \/v1\//.test(operation)),
    ).toBe(true);
    expect(count?.callers).toEqual([expect.objectContaining({ apiKeyId: shopKeyId, uses: 5 })]);

    const reason = find('grpc.inventory.v1.AdjustStockRequest.reason');
    expect(reason).toMatchObject({ contract: 'proto', grpcMethods: ['inventory.v1.Inventory/AdjustStock'] });
    expect(reason?.callers).toEqual([expect.objectContaining({ apiKeyId: 0, clients: ['stock-sync/1.4.0'], uses: 3 })]);
  });

  it('prints a table naming the callers', () => {
    expect(json).toBeDefined();
    const table = impactTable(json.impacts as never, json.unattributedOperations, true, 30);
    expect(table).toContain(
      'persisted GraphQL operations that stop validating: OrderDetail.graphql, UpdateOrder.graphql',
    );
    expect(table).toMatch(/key \d+ Ann Web <ann@shops\.example\.com> \[shop-web\/3\.2\.1\] 12 uses/);
    expect(table).toContain('gRPC methods: inventory.v1.Inventory/AdjustStock');
    expect(table).toMatch(/\(no key\) \[stock-sync\/1\.4\.0\] 3 uses/);
  });

  it('exits 0 when nobody seen in the window would break (no usage database read)', async () => {
    const { code, output } = await impact('--offline');
    expect(code).toBe(0);
    expect(output).toContain('callers: not read');
    expect(output).toContain('OrderDetail.graphql');
  });
});
