import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRegistry } from '@order-api/contract-gate';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { parse, stringify } from 'yaml';
import { DEPRECATED_ON, SUNSET } from './deprecation-fixture.js';

export { DEPRECATED_ON, SUNSET } from './deprecation-fixture.js';

/**
 * A copy of the project whose contract deprecates what webhook deliveries carry, its registry built as
 * `npm run generate` would:
 * - `deprecated`: the payload member `Order.amount` (in every order event's `data.object`) and the event
 *   type `order.updated` (its webhook `orderUpdatedWebhook`);
 * - `quiet`: nothing that an event carries is deprecated or watched: the response property
 *   `ProductRating.count` is deprecated (no payload reaches it) and watched.yaml keeps only
 *   `graphql.Order.amount`, so deliveries have nothing to signal or count.
 */
export function eventDeprecationFixture(kind: 'deprecated' | 'quiet'): {
  root: string;
  registry: DeprecationRegistry;
  remove(): void;
} {
  const root = path.resolve(import.meta.dirname, '../..');
  const fixture = mkdtempSync(path.join(tmpdir(), `event-deprecation-${kind}-`));
  cpSync(path.join(root, 'contracts'), path.join(fixture, 'contracts'), { recursive: true });
  cpSync(path.join(root, 'generated'), path.join(fixture, 'generated'), { recursive: true });
  const openapiFile = path.join(fixture, 'contracts/openapi.yaml');
  const openapi = parse(readFileSync(openapiFile, 'utf8'));
  const dates = { deprecated: true, 'x-deprecated-on': DEPRECATED_ON, 'x-sunset': SUNSET };
  if (kind === 'deprecated') {
    Object.assign(openapi.components.schemas.Order.properties.amount, dates);
    Object.assign(openapi.webhooks['order.updated'].post, dates);
  } else {
    Object.assign(openapi.components.schemas.ProductRating.properties.count, dates);
    const watchedFile = path.join(fixture, 'contracts/watched.yaml');
    const watched = parse(readFileSync(watchedFile, 'utf8')) as { watched: Array<{ item: string }> };
    watched.watched = watched.watched.filter((entry) => !entry.item.startsWith('rest.'));
    writeFileSync(watchedFile, stringify(watched));
  }
  writeFileSync(openapiFile, stringify(openapi));
  const { registry, problems } = buildRegistry(path.join(fixture, 'contracts'));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  writeFileSync(path.join(fixture, 'generated/deprecations.json'), `${JSON.stringify(registry, null, 2)}\n`);
  return { root: fixture, registry, remove: () => rmSync(fixture, { recursive: true, force: true }) };
}
