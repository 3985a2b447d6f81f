import { cpSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { deprecationFixture } from '../../test/support/deprecation-fixture.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The built server in a copy of the checkout whose contracts deprecate one item of each kind (the tests'
 * fixture: `GET /v1/products` among them). v1 deprecates nothing yet, and a brownout window can only be
 * scheduled for a deprecated item; everything else is the checkout's own build (`dist/`, migrations,
 * `node_modules` linked).
 */
export function projectWithDeprecations(): { root: string; brownoutItem: string; remove(): void } {
  const fixture = deprecationFixture();
  cpSync(path.join(root, 'dist'), path.join(fixture.root, 'dist'), { recursive: true });
  cpSync(path.join(root, 'src/store/migrations'), path.join(fixture.root, 'src/store/migrations'), { recursive: true });
  cpSync(path.join(root, 'package.json'), path.join(fixture.root, 'package.json'));
  symlinkSync(path.join(root, 'node_modules'), path.join(fixture.root, 'node_modules'));
  const operation = fixture.registry.items.find((item) => item.protocol === 'rest' && item.match.on === 'operation');
  if (!operation) throw new Error('the deprecation fixture no longer deprecates a REST operation');
  return { root: fixture.root, brownoutItem: operation.id, remove: fixture.remove };
}
