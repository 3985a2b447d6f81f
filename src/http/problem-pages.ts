import { Hono } from 'hono';
import Negotiator from 'negotiator';
import { type ErrorCode, errorCatalog } from '../core/shared/errors.js';
import { httpStatusOf } from './http-status.js';
import { catalogProblem, problemSlug } from './problem.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

const codes = Object.keys(errorCatalog) as ErrorCode[];
const bySlug = new Map(codes.map((code) => [problemSlug(code), code]));

/** How a code is told apart on each interface: the gRPC status name comes from the gRPC transport's own table. */
export type GrpcCodeName = (code: ErrorCode) => string | undefined;

function describe(code: ErrorCode, grpcCodeName: GrpcCodeName) {
  const spec: { title: string; description: string; graphqlOnly?: true } = errorCatalog[code];
  return {
    code,
    title: spec.title,
    description: spec.description,
    status: httpStatusOf[code],
    interfaces: spec.graphqlOnly ? ['graphql'] : ['rest', 'graphql', ...(grpcCodeName(code) ? ['grpc'] : [])],
    grpcCode: grpcCodeName(code) ?? null,
  };
}

function howReported(about: ReturnType<typeof describe>): string {
  const graphql = `GraphQL: <code>extensions.code</code> is <code>${about.code}</code>`;
  if (!about.interfaces.includes('rest')) return `<p>${graphql}, HTTP ${about.status} (GraphQL only).</p>`;
  const grpc = about.grpcCode
    ? `gRPC: status <code>${about.grpcCode}</code>, <code>google.rpc.ErrorInfo.reason</code> is <code>${about.code}</code>.`
    : 'gRPC: not reported (an HTTP-only failure).';
  return (
    `<p>REST: HTTP ${about.status}, <code>application/problem+json</code> with <code>"code": "${about.code}"</code>. ` +
    `${graphql}. ${grpc}</p>`
  );
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,"></head>
<body>${body}</body></html>
`;

/**
 * The pages that problem `type` URIs point at (RFC 9457 §3.1.1): `/problems` lists the error catalog and
 * `/problems/{slug}` documents one code (`ORDER_NOT_FOUND` -> `/problems/order-not-found`), as HTML or JSON.
 * Built from the catalog, so a new code gets its page with no further work.
 */
export function problemPages(grpcCodeName: GrpcCodeName = () => undefined): Hono {
  const app = new Hono();
  const negotiate = (accept: string | undefined) =>
    new Negotiator({ headers: { accept: accept ?? '*/*' } }).mediaType(['text/html', 'application/json']);
  app.get('/', (c) => {
    const type = negotiate(c.req.header('accept'));
    if (type === 'application/json') return c.json(codes.map((code) => describe(code, grpcCodeName)));
    if (!type) return catalogProblem(c, 'NOT_ACCEPTABLE', 'The catalog is served as text/html or application/json.');
    const rows = codes
      .map(
        (code) =>
          `<li><a href="/problems/${problemSlug(code)}"><code>${code}</code></a>: ${escapeHtml(errorCatalog[code].title)}</li>`,
      )
      .join('\n');
    return c.html(page('Order API errors', `<h1>Order API errors</h1>\n<ul>\n${rows}\n</ul>`));
  });
  app.get('/:slug', (c) => {
    const code = bySlug.get(c.req.param('slug'));
    if (!code) return catalogProblem(c, 'NOT_FOUND', `No error code has the page ${c.req.path}.`);
    const type = negotiate(c.req.header('accept'));
    const about = describe(code, grpcCodeName);
    if (type === 'application/json') return c.json(about);
    if (!type) return catalogProblem(c, 'NOT_ACCEPTABLE', 'This page is served as text/html or application/json.');
    return c.html(
      page(
        `${code}: ${about.title}`,
        `<h1><code>${code}</code></h1>\n<p><strong>${escapeHtml(about.title)}</strong>. ${escapeHtml(about.description)}</p>\n` +
          `${howReported(about)}\n<p><a href="/problems">All error codes</a></p>`,
      ),
    );
  });
  return app;
}
