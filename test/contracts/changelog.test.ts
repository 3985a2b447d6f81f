import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkChangelog, parseChangelog, stampRelease } from '@order-api/contract-gate';
import { describe, expect, it } from 'vitest';
import { contractsRoutes } from '../../src/http/contracts-routes.js';
import { docsRoutes } from '../../src/http/docs-routes.js';
import { versionMounts } from '../../src/http/version-mounts.js';

const root = path.resolve(import.meta.dirname, '../..');
const changelogText = readFileSync(path.join(root, 'contracts/CHANGELOG.md'), 'utf8');
const noVersions = { openapi: new Set<string>(), proto: new Set<string>() };
const unreleased = (body: string) => `# Changelog\n\n## [Unreleased]\n\n${body}\n## [1.0.0] - 2026-11-23\n`;

describe('contracts/CHANGELOG.md', () => {
  it('is well formed: an Unreleased section of classified, labelled entries above dated releases', () => {
    const changelog = parseChangelog(changelogText);
    expect(changelog.problems).toEqual([]);
    expect(changelog.releases).toContainEqual({ version: '1.0.0', date: '2026-11-23' });
    for (const entry of changelog.unreleased) expect(entry.items.length, entry.text).toBeGreaterThan(0);
  });

  it('names what is wrong with a malformed entry, and where', () => {
    const { problems } = parseChangelog(
      unreleased('### Added\n\n- the orders got a field\n\n### Improved\n\n- REST: `x`\n'),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^line 7: an Unreleased bullet must read "- REST: …"/),
      expect.stringMatching(/^line 9: "Improved" is not one of Added, Changed, Deprecated, Removed, Fixed, Security/),
    ]);
  });

  it('reads an entry that spans lines and names several contracts', () => {
    const { unreleased: entries } = parseChangelog(
      unreleased('### Added\n\n- REST, GraphQL: `Order.giftWrap`, and\n  `giftWrap` in REST.\n'),
    );
    expect(entries).toEqual([
      expect.objectContaining({
        category: 'Added',
        contracts: ['openapi', 'graphql'],
        items: ['Order.giftWrap', 'giftWrap'],
      }),
    ]);
  });

  it('lets a [v2] entry through only when the contract newly publishes v2', () => {
    const changelog = parseChangelog(unreleased('### Changed\n\n- REST [v2]: `GET /v2/orders` pages by offset.\n'));
    const cut = { openapi: new Set(['v1', 'v2']), proto: new Set(['v1']) };
    expect(checkChangelog({ changelog, differs: ['openapi'], base: noVersions, head: cut })).toEqual([]);
    expect(checkChangelog({ changelog, differs: ['openapi'], base: cut, head: cut })).toEqual([
      expect.objectContaining({ rule: 'changelog-version-not-cut' }),
    ]);
  });

  it('is stamped by a release: the entries move under the dated version, Unreleased starts empty', () => {
    const stamped = parseChangelog(stampRelease(changelogText, '1.1.0', '2026-12-01'));
    expect(stamped.problems).toEqual([]);
    expect(stamped.unreleased).toEqual([]);
    expect(stamped.releases[0]).toEqual({ version: '1.1.0', date: '2026-12-01' });
  });
});

describe('the published changelog', () => {
  it('is served at /contracts/changelog as Markdown', async () => {
    const app = await contractsRoutes({ projectRoot: root });
    const response = await app.request('/changelog');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await response.text()).toBe(changelogText);
  });

  it('is linked from the reference page at /docs', async () => {
    const app = await docsRoutes(undefined, undefined, versionMounts({ paths: { '/v1/orders': {} } }));
    const page = await (await app.request('/')).text();
    expect(page).toContain('href="/contracts/changelog"');
  });
});
