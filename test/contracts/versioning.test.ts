import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry, runGate } from '@order-api/contract-gate';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contractsDirectory, inventoryV2Proto, openapiWithV2, v2Changelog } from '../support/versioning-fixture.js';

const root = path.resolve(import.meta.dirname, '../..');
const contracts = path.join(root, 'contracts');
const scratch = mkdtempSync(path.join(tmpdir(), 'versioning-gate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The gate between the real contracts and `headDir` (REST and GraphQL only: buf is the proto test's). */
const gate = async (headDir: string) =>
  runGate({ root, baseDir: contracts, headDir, retirements: [], today: '2026-11-26', protoChanges: [] });

describe('the gate and a version cut (test/fixtures/versioning)', () => {
  it('passes the fixture’s v2 of orders with its [v2] bullet, and not without one', async () => {
    const cut = await gate(contractsDirectory(path.join(scratch, 'v2'), openapiWithV2(), v2Changelog()));
    expect(cut.blocking.map((f) => f.message)).toEqual([]);
    expect(cut.findings.map((f) => f.item)).toContain('GET /v2/orders');
    const unnamed = await gate(
      contractsDirectory(path.join(scratch, 'v2-unnamed'), openapiWithV2(), '# Changelog\n\n## [Unreleased]\n'),
    );
    expect(unnamed.blocking.map((f) => f.rule)).toContain('changelog-entry-missing');
  });

  it('refuses the same change made in place under /v1, even with the [v2] bullet', async () => {
    const inPlace = parse(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8'));
    const { OrderAmount } = openapiWithV2().components.schemas;
    inPlace.components.schemas.OrderAmount = OrderAmount;
    const order = inPlace.components.schemas.Order;
    order.properties.amount = { $ref: '#/components/schemas/OrderAmount' };
    delete order.properties.amountDetail;
    const result = await gate(contractsDirectory(path.join(scratch, 'in-place'), inPlace, v2Changelog()));
    const rules = result.blocking.map((f) => f.rule);
    expect(rules).toContain('changelog-version-not-cut');
    expect(result.blocking.some((f) => f.item.includes('amount') && f.rule !== 'changelog-version-not-cut')).toBe(true);
  });
});

describe('GraphQL does not version: the same change is an addition there', () => {
  const sdl = readFileSync(path.join(contracts, 'schema.graphql'), 'utf8');
  const money =
    'type OrderMoney {\n  "The total."\n  total: Float!\n  "Without VAT."\n  supply: Float!\n  "The VAT."\n  vat: Float!\n  "ISO 4217."\n  currency: String!\n}\n';
  const withSchema = (name: string, schema: string, changelog: string) => {
    const document = parse(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8'));
    const dir = contractsDirectory(path.join(scratch, name), document, changelog);
    writeFileSync(path.join(dir, 'schema.graphql'), schema);
    return dir;
  };

  it('passes `Order.money` added beside `amount`, and refuses `amount` changed in place', async () => {
    const added = sdl.replace(
      /(\n\s*amount: Float!)/,
      '$1\n  "The money of the order as one object."\n  money: OrderMoney!',
    );
    expect(added).not.toBe(sdl);
    const bullet = '# Changelog\n\n## [Unreleased]\n\n### Added\n\n- GraphQL: `Order.money` (`OrderMoney`).\n';
    const addition = await gate(withSchema('money', `${added}\n${money}`, bullet));
    expect(addition.blocking.map((f) => f.message)).toEqual([]);
    const changed = sdl.replace(/(\n\s*amount: )Float!/, '$1OrderMoney!');
    const inPlace = await gate(withSchema('money-in-place', `${changed}\n${money}`, bullet));
    expect(inPlace.blocking.some((f) => f.contract === 'graphql' && f.item.includes('Order.amount'))).toBe(true);
  });
});

describe('gRPC: a breaking change is a new package beside the old one', () => {
  const withProto = (name: string, place: (dir: string) => void) => {
    const document = parse(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8'));
    // A new package's items are each named (the gate does not take a package as covering its contents).
    const added = ['Inventory', 'ReservationState', ...inventoryV2Proto().matchAll(/^message (\w+)/gm)].map((m) =>
      typeof m === 'string' ? m : m[1],
    );
    const names = added.map((name) => `\`inventory.v2.${name}\``).join(', ');
    const bullet = `# Changelog\n\n## [Unreleased]\n\n### Changed\n\n- gRPC [v2]: package \`inventory.v2\` beside \`inventory.v1\`, \`Stock\` counting in int64: ${names}.\n`;
    const dir = contractsDirectory(path.join(scratch, name), document, bullet);
    place(dir);
    return dir;
  };
  const full = (headDir: string) =>
    runGate({ root, baseDir: contracts, headDir, retirements: [], today: '2026-11-26' });

  it('passes inventory.v2 with a changed Stock beside an unchanged v1 (buf breaking), and refuses it in place', async () => {
    const beside = withProto('grpc-v2', (dir) => {
      mkdirSync(path.join(dir, 'inventory/v2'));
      writeFileSync(path.join(dir, 'inventory/v2/inventory.proto'), inventoryV2Proto());
    });
    expect((await full(beside)).blocking.map((f) => f.message)).toEqual([]);
    // The registry reads every package: both packages' deprecated and watched fields are items.
    expect(buildRegistry(beside).problems).toEqual([]);
    const inPlace = withProto('grpc-in-place', (dir) => {
      const changed = inventoryV2Proto().replace('package inventory.v2;', 'package inventory.v1;');
      writeFileSync(path.join(dir, 'inventory/v1/inventory.proto'), changed);
    });
    expect((await full(inPlace)).blocking.some((f) => f.contract === 'proto')).toBe(true);
  });
});
