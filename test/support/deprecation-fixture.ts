import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry } from '@order-api/contract-gate';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { restMatcher } from '@order-api/contract-registry/matching';
import { parse, stringify } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');

/** The dates every fixture deprecation carries. */
export const DEPRECATED_ON = '2026-11-01';
export const SUNSET = '2027-06-30';

/**
 * Nothing is deprecated in v1 yet, so the machinery is proven on a copy of the project whose contracts
 * deprecate one item of each kind: the REST operation `listProducts`, the query parameter
 * `listOrders.hasCoupon`, the request body member `ProductCreate.imageUrl`, the response property
 * `ProductRating.count`, the GraphQL field `Order.note`
 *, and the proto field `AdjustStockRequest.reason`. The registry is
 * built from them as `npm run generate` would.
 */
export function deprecationFixture(): { root: string; registry: DeprecationRegistry; remove(): void } {
  const fixture = mkdtempSync(path.join(tmpdir(), 'deprecation-fixture-'));
  cpSync(path.join(root, 'contracts'), path.join(fixture, 'contracts'), { recursive: true });
  cpSync(path.join(root, 'generated'), path.join(fixture, 'generated'), { recursive: true });
  const dates = { 'x-deprecated-on': DEPRECATED_ON, 'x-sunset': SUNSET };

  const openapiFile = path.join(fixture, 'contracts/openapi.yaml');
  const openapi = parse(readFileSync(openapiFile, 'utf8'));
  Object.assign(openapi.paths['/v1/products'].get, { deprecated: true, ...dates });
  openapi.paths['/v1/orders'].get.parameters = openapi.paths['/v1/orders'].get.parameters.map(
    (parameter: { $ref?: string }) =>
      parameter.$ref === '#/components/parameters/HasCoupon'
        ? { ...openapi.components.parameters.HasCoupon, deprecated: true, ...dates }
        : parameter,
  );
  Object.assign(openapi.components.schemas.ProductCreate.properties.imageUrl, { deprecated: true, ...dates });
  Object.assign(openapi.components.schemas.ProductRating.properties.count, { deprecated: true, ...dates });
  writeFileSync(openapiFile, stringify(openapi));

  const schemaFile = path.join(fixture, 'contracts/schema.graphql');
  const reason = `Deprecated: ${DEPRECATED_ON}. Sunset: ${SUNSET}.`;
  writeFileSync(
    schemaFile,
    readFileSync(schemaFile, 'utf8').replace(
      /\n(\s*)note: String\n/,
      `\n$1note: String @deprecated(reason: "Use the order's items. ${reason}")\n`,
    ),
  );

  const protoFile = path.join(fixture, 'contracts/inventory/v1/inventory.proto');
  writeFileSync(
    protoFile,
    readFileSync(protoFile, 'utf8').replace(
      /\n(\s*)\/\/ Why the stock changed.*\n\s*string reason = 3 \[([^\]]*)\];/,
      `\n$1// Why the stock changed. Free text nobody reads. ${reason}\n$1string reason = 3 [deprecated = true, $2];`,
    ),
  );

  let { registry, problems } = buildRegistry(path.join(fixture, 'contracts'));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  // A deprecated REST operation documents its brownout answer (410), as the lint requires.
  const touched = new Set(
    registry.items
      .filter((item) => item.protocol === 'rest' && item.match.on === 'operation')
      .flatMap((item) => restMatcher(registry, openapi).operationsSending(item.id)),
  );
  for (const pathItem of Object.values(openapi.paths) as Array<
    Record<string, { operationId?: string; responses: object }>
  >) {
    for (const operation of Object.values(pathItem)) {
      if (operation?.operationId && touched.has(operation.operationId)) {
        Object.assign(operation.responses, { '410': { $ref: '#/components/responses/Gone' } });
      }
    }
  }
  writeFileSync(openapiFile, stringify(openapi));
  ({ registry, problems } = buildRegistry(path.join(fixture, 'contracts')));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  writeFileSync(path.join(fixture, 'generated/deprecations.json'), `${JSON.stringify(registry, null, 2)}\n`);
  return { root: fixture, registry, remove: () => rmSync(fixture, { recursive: true, force: true }) };
}
