import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { Hono } from 'hono';
import { etag } from 'hono/etag';
import { renderDeprecationsPage } from './deprecations-page.js';
import { StaticAsset } from './static-asset.js';
import { usagePage } from './usage-page.js';
import { usageScript } from './usage-script.js';
import type { VersionMounts } from './version-mounts.js';

const require = createRequire(import.meta.url);

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Order API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <p style="font-family: sans-serif; margin: 1em 2em">
    What changed in each release: <a href="/contracts/changelog">the contracts' changelog</a>.
    The contracts themselves: <a href="/contracts/openapi">OpenAPI</a>, <a href="/contracts/graphql">GraphQL</a>,
    <a href="/contracts/inventory">gRPC</a>.
    Deprecated and watched items of all three, with their dated ends: <a href="/docs/deprecations">deprecations</a>;
    what your key still uses of them, as charts: <a href="/docs/usage">usage</a>.
  </p><!--versions-->
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

// validatorUrl: null keeps the page from calling the public Swagger validator: the page makes no request
// outside this server.
const init = `const documents = __DOCUMENTS__;
window.ui = SwaggerUIBundle({
  // /docs/<version> renders that version's document; /docs the current one (or the whole contract).
  url: documents[location.pathname.split('/')[2]] || documents[''],
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Shows x-deprecated-on and x-sunset beside deprecated operations, parameters and properties.
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
`;

/**
 * Renders the published OpenAPI contract as a reference page at `/docs`, with every asset served locally,
 * the deprecation reference of all three contracts at `/docs/deprecations`, and the usage charts of
 * deprecated and watched items at `/docs/usage`.
 */
export async function docsRoutes(
  registry: DeprecationRegistry = { items: [] },
  announced: ((id: string) => Array<{ startsAt: Date; endsAt: Date }>) | undefined,
  mounts: VersionMounts,
): Promise<Hono> {
  const { page, documents } = versionedPage(mounts);
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const [css, bundle] = await Promise.all([
    readFile(path.join(dist, 'swagger-ui.css'), 'utf8'),
    readFile(path.join(dist, 'swagger-ui-bundle.js'), 'utf8'),
  ]);
  // A Map, not an object: `constructor` or `__proto__` must be a 404, not a property of Object.prototype.
  // Built once: every answer sends the same bytes (gzip-compressed once for callers that accept it).
  const script = 'text/javascript; charset=utf-8';
  const assets = new Map<string, StaticAsset>([
    ['swagger-ui.css', new StaticAsset('text/css; charset=utf-8', css)],
    ['swagger-ui-bundle.js', new StaticAsset(script, bundle)],
    ['init.js', new StaticAsset(script, init.replace('__DOCUMENTS__', JSON.stringify(documents)))],
    ['usage.js', new StaticAsset(script, usageScript(mounts.prefix(mounts.current)))],
  ]);
  const reference = new StaticAsset('text/html; charset=utf-8', page);
  const usage = new StaticAsset('text/html; charset=utf-8', usagePage);

  const app = new Hono();
  app.use('*', etag());
  app.use('*', async (c, next) => {
    await next();
    // The contract's server URL is relative, so "Try it out" calls this same origin: 'self' is exactly it.
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    );
  });
  app.get('/', (c) => reference.serve(c, 'no-cache'));
  for (const version of mounts.versions) app.get(`/${version}`, (c) => reference.serve(c, 'no-cache'));
  app.get('/deprecations', (c) => c.html(renderDeprecationsPage(registry, announced)));
  app.get('/usage', (c) => usage.serve(c, 'no-cache'));
  app.get('/assets/:name', (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) return c.notFound();
    return asset.serve(c, 'public, max-age=3600');
  });
  return app;
}

/**
 * With one version, `/docs` renders the whole contract. With several, it renders the current version's
 * document and links each version's page (`/docs/<version>`, its document `/contracts/openapi/<version>`).
 */
function versionedPage(mounts: VersionMounts): { page: string; documents: Record<string, string> } {
  if (mounts.versions.length === 1) return { page, documents: { '': '/contracts/openapi' } };
  const documentOf = (version: string) => `/contracts/openapi/${version}`;
  const documents: Record<string, string> = { '': documentOf(mounts.current) };
  for (const version of mounts.versions) documents[version] = documentOf(version);
  const links = [...mounts.versions]
    .reverse()
    .map((version) => `<a href="/docs/${version}">${version}${version === mounts.current ? ' (current)' : ''}</a>`);
  const choice = `\n  <p style="font-family: sans-serif; margin: 1em 2em">API versions: ${links.join(' · ')}.</p>`;
  return { page: page.replace('<!--versions-->', choice), documents };
}
