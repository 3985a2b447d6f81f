import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '../../src/core/shared/errors.js';
import { httpStatusOf } from '../../src/http/http-status.js';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

// A problem's `type` is a link a developer can open: it resolves to a page on this server.
let server: RunningServer;
let proxied: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
  proxied = await startTestServer({ PUBLIC_BASE_URL: 'https://api.example.test/' });
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
});

describe('problem type URIs', () => {
  it('resolve to a page of this server that documents the code', async () => {
    const { status, body } = await checkedFetch(server.httpUrl, '/v1/products/999999');
    expect(status).toBe(404);
    const problem = body as { type: string; code: string };
    expect(problem.type).toBe(`${server.httpUrl}/problems/product-not-found`);
    const page = await fetch(problem.type);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('PRODUCT_NOT_FOUND');
  });

  it('have a page for every code of the catalog, and an index, in HTML and JSON', async () => {
    const index = (await (
      await fetch(`${server.httpUrl}/problems`, { headers: { accept: 'application/json' } })
    ).json()) as Array<{ code: string }>;
    expect(index.map((entry) => entry.code).sort()).toEqual(Object.keys(errorCatalog).sort());
    for (const code of Object.keys(errorCatalog)) {
      const slug = code.toLowerCase().replaceAll('_', '-');
      const response = await fetch(`${server.httpUrl}/problems/${slug}`, { headers: { accept: 'application/json' } });
      expect(await response.json()).toMatchObject({ code, status: httpStatusOf[code as keyof typeof httpStatusOf] });
    }
    expect((await checkedFetch(server.httpUrl, '/problems/no-such-code')).status).toBe(404);
  });

  it('cover the GraphQL request errors the schema documents, as GraphQL only, with their gRPC status where gRPC has one', async () => {
    const schema = readFileSync(new URL('../../contracts/schema.graphql', import.meta.url), 'utf8');
    const graphqlOnly = Object.entries(errorCatalog)
      .filter(([, spec]) => (spec as { graphqlOnly?: true }).graphqlOnly)
      .map(([code]) => code);
    expect(graphqlOnly.length).toBeGreaterThanOrEqual(10);
    for (const code of graphqlOnly) expect(schema, code).toContain(`\`${code}\``);
    const timeout = await (
      await fetch(`${server.httpUrl}/problems/timeout`, { headers: { accept: 'application/json' } })
    ).json();
    expect(timeout).toMatchObject({ code: 'TIMEOUT', interfaces: ['graphql'], grpcCode: null });
    const stock = await (
      await fetch(`${server.httpUrl}/problems/insufficient-stock`, { headers: { accept: 'application/json' } })
    ).json();
    expect(stock).toMatchObject({
      status: 409,
      interfaces: ['rest', 'graphql', 'grpc'],
      grpcCode: 'FAILED_PRECONDITION',
    });
    const notAcceptable = await (
      await fetch(`${server.httpUrl}/problems/not-acceptable`, { headers: { accept: 'application/json' } })
    ).json();
    expect(notAcceptable).toMatchObject({ status: 406, interfaces: ['rest', 'graphql'], grpcCode: null });
  });

  it('use PUBLIC_BASE_URL when a proxy stands in front', async () => {
    const { body } = await checkedFetch(proxied.httpUrl, '/v1/products/999999');
    expect((body as { type: string }).type).toBe('https://api.example.test/problems/product-not-found');
  });
});
