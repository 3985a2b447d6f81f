import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry } from '@order-api/contract-gate';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { parse, stringify } from 'yaml';
import { DEPRECATED_ON, SUNSET } from './deprecation-fixture.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The specification's own example of a change (spec §9.2 rule 2) at its second step: a copy of the
 * project whose contracts deprecate `Order.amount` with its replacement named beside the deprecation —
 * REST `x-replaced-by: amountDetail`, GraphQL ``@deprecated(reason: "Use `amountDetail`. …")`` — while
 * watched.yaml still lists both items with their replacement; and the gRPC reply field `Stock.reserved`.
 * The registry is built as `npm run generate` would.
 */
export function amountMigrationFixture(): { root: string; registry: DeprecationRegistry; remove(): void } {
  const fixture = mkdtempSync(path.join(tmpdir(), 'amount-migration-'));
  cpSync(path.join(root, 'contracts'), path.join(fixture, 'contracts'), { recursive: true });
  cpSync(path.join(root, 'generated'), path.join(fixture, 'generated'), { recursive: true });

  const openapiFile = path.join(fixture, 'contracts/openapi.yaml');
  const openapi = parse(readFileSync(openapiFile, 'utf8'));
  Object.assign(openapi.components.schemas.Order.properties.amount, {
    deprecated: true,
    'x-deprecated-on': DEPRECATED_ON,
    'x-sunset': SUNSET,
    'x-replaced-by': 'amountDetail',
  });
  writeFileSync(openapiFile, stringify(openapi));

  const schemaFile = path.join(fixture, 'contracts/schema.graphql');
  const schema = readFileSync(schemaFile, 'utf8');
  const deprecated = schema.replace(
    /(\n\s*amount: Float!)(\n)/,
    `$1 @deprecated(reason: "Use \`amountDetail\`. Deprecated: ${DEPRECATED_ON}. Sunset: ${SUNSET}.")$2`,
  );
  if (deprecated === schema) throw new Error('the fixture found no `amount: Float!` field in schema.graphql');
  writeFileSync(schemaFile, deprecated);

  // gRPC: the reply field `Stock.reserved`, read by every GetStock caller (no caller can leave it out).
  const protoFile = path.join(fixture, 'contracts/inventory/v1/inventory.proto');
  const proto = readFileSync(protoFile, 'utf8');
  const deprecatedProto = proto.replace(
    /\n(\s*)(\/\/ [^\n]*\n)(\s*)int32 reserved = 3;/,
    `\n$1$2$1// Deprecated: ${DEPRECATED_ON}. Sunset: ${SUNSET}.\n$3int32 reserved = 3 [deprecated = true];`,
  );
  if (deprecatedProto === proto) throw new Error('the fixture found no `int32 reserved = 3;` in the proto');
  writeFileSync(protoFile, deprecatedProto);

  const { registry, problems } = buildRegistry(path.join(fixture, 'contracts'));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  writeFileSync(path.join(fixture, 'generated/deprecations.json'), `${JSON.stringify(registry, null, 2)}\n`);
  return { root: fixture, registry, remove: () => rmSync(fixture, { recursive: true, force: true }) };
}
