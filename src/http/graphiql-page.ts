import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'hono';
import { StaticAsset } from './static-asset.js';

const require = createRequire(import.meta.url);

/** What @graphql-yoga/render-graphiql bundles: GraphiQL's script and style, and Monaco's three workers. */
interface GraphiqlBundle {
  js: string;
  css: string;
  editorWorkerService: string;
  jsonWorker: string;
  graphqlWorker: string;
}

/** Where the page's files are served, under the GraphQL endpoint. */
export const GRAPHIQL_ASSETS = '/graphql/graphiql';

/**
 * The page's policy: every script, style sheet and worker from this origin, requests to this origin only.
 * Inline styles stay allowed because the editor (Monaco) writes its own `<style>` elements at run time;
 * no inline script runs (the options travel as a JSON data block, which is never executed).
 */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Assets change only with a new build, and their URLs carry their version: cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** GraphiQL's title and the query it opens with. */
const DEFAULT_OPTIONS = {
  title: 'Order API · GraphiQL',
  defaultQuery: '{ products(first: 5) { nodes { id name price rating } } }',
};

/** GraphiQL's page, built once: a small HTML page and its files, each a `StaticAsset`. */
export interface GraphiqlPage {
  /** Answers `GET /graphql` from a browser (`Accept: text/html`). */
  page(c: Context): Response;
  /** Answers `GET /graphql/graphiql/:file`, or `undefined` for a file it does not have. */
  asset(c: Context, file: string): Response | undefined;
}

/** The pages built in this process, by their options: one build (about 90 ms, 20 MB) serves every app. */
const built = new Map<string, Promise<GraphiqlPage>>();

/**
 * GraphiQL without a CDN and without a page rendered per request: the 9 MB bundle is read once, split
 * into files a browser caches (script, style, one file per Monaco worker) and served from the same
 * buffers to every caller, gzip-compressed when the caller accepts it. The HTML page is about 1 KB.
 */
export function createGraphiqlPage(
  options: { title: string; defaultQuery: string } = DEFAULT_OPTIONS,
): Promise<GraphiqlPage> {
  const key = JSON.stringify(options);
  let page = built.get(key);
  if (!page) {
    page = buildGraphiqlPage(options);
    built.set(key, page);
  }
  return page;
}

async function buildGraphiqlPage(options: { title: string; defaultQuery: string }): Promise<GraphiqlPage> {
  const entry = require.resolve('@graphql-yoga/render-graphiql');
  // The bundle's module is not in the package's exports map; it is imported by its file URL.
  const bundleFile = path.join(path.dirname(entry), '..', 'esm', 'graphiql.js');
  const bundle = (await import(pathToFileURL(bundleFile).href)) as GraphiqlBundle;
  const workers: Record<string, StaticAsset> = {
    editorWorkerService: new StaticAsset('text/javascript; charset=utf-8', bundle.editorWorkerService),
    json: new StaticAsset('text/javascript; charset=utf-8', bundle.jsonWorker),
    graphql: new StaticAsset('text/javascript; charset=utf-8', bundle.graphqlWorker),
  };
  const workerUrls = Object.fromEntries(
    Object.entries(workers).map(([label, asset]) => [
      label,
      `${GRAPHIQL_ASSETS}/${label}.worker.js?v=${asset.version}`,
    ]),
  );
  const script = new StaticAsset(
    'text/javascript; charset=utf-8',
    `self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => (${JSON.stringify(workerUrls)})[label] };\n` +
      `${bundle.js};\n` +
      `YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'),` +
      ` JSON.parse(document.getElementById('graphiql-options').textContent));\n`,
  );
  const style = new StaticAsset('text/css; charset=utf-8', bundle.css);
  const files = new Map<string, StaticAsset>([
    ['graphiql.js', script],
    ['graphiql.css', style],
    ...Object.entries(workers).map(([label, asset]) => [`${label}.worker.js`, asset] as const),
  ]);
  // `<` escaped: the JSON cannot close its element.
  const json = JSON.stringify(options).replaceAll('<', '\\u003c');
  const html = new StaticAsset(
    'text/html; charset=utf-8',
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(options.title)}</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${GRAPHIQL_ASSETS}/graphiql.css?v=${style.version}">
</head>
<body id="body" class="no-focus-outline">
  <noscript>GraphiQL needs JavaScript. Without it, POST queries to /graphql (contracts/schema.graphql).</noscript>
  <div id="root"></div>
  <script id="graphiql-options" type="application/json">${json}</script>
  <script src="${GRAPHIQL_ASSETS}/graphiql.js?v=${script.version}"></script>
</body>
</html>
`,
  );
  return {
    page: (c) => html.serve(c, 'no-cache', { 'content-security-policy': POLICY }),
    asset(c, file) {
      return files.get(file)?.serve(c, IMMUTABLE, { 'x-content-type-options': 'nosniff' });
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
