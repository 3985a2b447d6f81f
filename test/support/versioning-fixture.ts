import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry } from '@order-api/contract-gate';
import { parse, stringify } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(root, 'test/fixtures/versioning');

type Json = Record<string, any>;

/** contracts/openapi.yaml with the fixture's v2 of orders (test/fixtures/versioning/v2-orders.yaml) merged in. */
export function openapiWithV2(): Json {
  const document = parse(readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8'));
  // Parsed once more and cloned: the overlay's YAML anchors must not become shared objects in the output.
  const overlay = structuredClone(parse(readFileSync(path.join(fixtures, 'v2-orders.yaml'), 'utf8'), { merge: true }));
  Object.assign(document.paths, overlay.paths);
  Object.assign(document.components.schemas, overlay.components.schemas);
  return document;
}

/**
 * A directory of contracts as the gate reads them (`--base`/`--head`): the real ones with `openapi` as
 * the REST contract and `changelog` as CHANGELOG.md.
 */
export function contractsDirectory(dir: string, openapi: Json, changelog: string): string {
  cpSync(path.join(root, 'contracts'), dir, { recursive: true });
  writeFileSync(path.join(dir, 'openapi.yaml'), stringify(openapi, { aliasDuplicateObjects: false }));
  writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog);
  return dir;
}

/** The fixture's changelog: the real how-to and one `[v2]` bullet naming the cut's items. */
export const v2Changelog = () => readFileSync(path.join(fixtures, 'CHANGELOG-v2.md'), 'utf8');

/**
 * A copy of the project whose REST contract also declares v2 (orders only) and whose gRPC contract holds
 * inventory.v2 beside inventory.v1, with the published JSON
 * contract and the deprecation registry rebuilt as `npm run generate` would: the root a fixture server
 * serves (`startFixtureServer` with `v2OrderHandlers`).
 */
export function versioningFixture(edit: (document: Json) => void = () => {}): { root: string; remove(): void } {
  const fixture = mkdtempSync(path.join(tmpdir(), 'versioning-'));
  cpSync(path.join(root, 'generated'), path.join(fixture, 'generated'), { recursive: true });
  const document = openapiWithV2();
  edit(document);
  const contracts = contractsDirectory(path.join(fixture, 'contracts'), document, v2Changelog());
  mkdirSync(path.join(contracts, 'inventory/v2'));
  writeFileSync(path.join(contracts, 'inventory/v2/inventory.proto'), inventoryV2Proto());
  mkdirSync(path.join(fixture, 'generated/contracts'), { recursive: true });
  writeFileSync(path.join(fixture, 'generated/contracts/openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
  const { registry, problems } = buildRegistry(contracts);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  writeFileSync(path.join(fixture, 'generated/deprecations.json'), `${JSON.stringify(registry, null, 2)}\n`);
  return { root: fixture, remove: () => rmSync(fixture, { recursive: true, force: true }) };
}

/**
 * The fixture's gRPC cut: package `inventory.v2` beside an unchanged `inventory.v1`, the same service with
 * one changed message (`Stock`'s quantities become int64, a type change buf calls breaking in place).
 */
export function inventoryV2Proto(): string {
  const v1 = readFileSync(path.join(root, 'contracts/inventory/v1/inventory.proto'), 'utf8');
  const v2 = v1
    .replace('package inventory.v1;', 'package inventory.v2;')
    .replace(/int32 (on_hand|reserved|available) = (\d);/g, 'int64 $1 = $2;');
  if (!v2.includes('package inventory.v2;') || !v2.includes('int64 on_hand = 2;'))
    throw new Error('the fixture found no `package inventory.v1;` or `Stock.on_hand` in the proto');
  return v2;
}
