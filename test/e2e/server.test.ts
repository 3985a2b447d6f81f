import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch, expectContract, see } from '../support/contract.js';
import { grpcClient } from '../support/grpc-client.js';
import { startTestServer } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const contractFile = (file: string) => readFileSync(path.join(root, file), 'utf8');

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('the running server', () => {
  it('answers /health as the contract documents, with a request id', async () => {
    const { status, headers, body } = await checkedFetch(server.httpUrl, '/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok' });
    expect(headers.get('x-request-id')).toMatch(/\S+/);
  });

  it('answers the health probes whatever Accept and query parameters a probe or proxy adds', async () => {
    for (const path of ['/health', '/health/ready', '/health/live']) {
      const { status, body } = await checkedFetch(server.httpUrl, `${path}?probe=lb-7`, {
        headers: { accept: 'text/plain' },
      });
      expect(status, path).toBe(200);
      expect(body, path).toMatchObject({ status: 'ok' });
    }
  });

  it('echoes a caller-supplied X-Request-Id', async () => {
    const response = await fetch(`${server.httpUrl}/health`, { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
  });

  it('publishes the OpenAPI contract as JSON by default, equal to contracts/openapi.yaml', async () => {
    const response = await fetch(`${server.httpUrl}/contracts/openapi`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(parseYaml(contractFile('contracts/openapi.yaml')));
  });

  it('publishes the OpenAPI contract as YAML when asked, byte for byte', async () => {
    const response = await fetch(`${server.httpUrl}/contracts/openapi`, { headers: { accept: 'application/yaml' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(response.headers.get('vary')).toMatch(/accept/i);
    expect(await response.text()).toBe(contractFile('contracts/openapi.yaml'));
  });

  it('publishes the GraphQL schema and the inventory proto as text', async () => {
    const schema = await fetch(`${server.httpUrl}/contracts/graphql`);
    expect(schema.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await schema.text()).toBe(contractFile('contracts/schema.graphql'));
    const proto = await fetch(`${server.httpUrl}/contracts/inventory`);
    expect(await proto.text()).toBe(contractFile('contracts/inventory/v1/inventory.proto'));
  });

  // The proto imports protovalidate's rules; a client that saves what the server publishes can compile it.
  it('publishes what the inventory proto imports, so that a client compiles the two files it fetched', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'published-proto-'));
    try {
      const save = async (url: string, file: string) => {
        const answer = await fetch(`${server.httpUrl}${url}`);
        expect(answer.status, url).toBe(200);
        mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
        writeFileSync(path.join(folder, file), await answer.text());
      };
      await save('/contracts/inventory', 'inventory/v1/inventory.proto');
      await save('/contracts/buf-validate', 'buf/validate/validate.proto');
      writeFileSync(path.join(folder, 'buf.yaml'), 'version: v2\n');
      const built = execFileSync('buf', ['build', folder, '-o', '-#format=json'], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      const files = (JSON.parse(built) as { file: Array<{ name: string }> }).file.map((file) => file.name);
      expect(files).toEqual(expect.arrayContaining(['inventory/v1/inventory.proto', 'buf/validate/validate.proto']));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  // A `Host` header is the client's to write; a link in an answer must not point where it chose.
  it('never reflects an untrusted Host into a problem type URL', async () => {
    const { port } = new URL(server.httpUrl);
    const problemTypeWith = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, path: '/v1/orders', headers: { host } }, (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve((JSON.parse(text) as { type: string }).type));
        });
        request.on('error', reject);
        request.end();
      });
    expect(await problemTypeWith('evil.example')).toBe(`http://localhost:${port}/problems/unauthenticated`);
    expect(await problemTypeWith(`localhost:${port}`)).toBe(`http://localhost:${port}/problems/unauthenticated`);
    expect(await problemTypeWith(`127.0.0.1:${port}`)).toBe(`http://127.0.0.1:${port}/problems/unauthenticated`);
  });

  it('lets no other site frame its pages', async () => {
    for (const url of ['/docs', '/problems', '/graphql']) {
      const response = await fetch(`${server.httpUrl}${url}`, { headers: { accept: 'text/html' } });
      expect(response.headers.get('content-type'), url).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options'), url).toBe('DENY');
      await response.body?.cancel();
    }
  });

  it('answers 406 with a problem document when no published representation is acceptable', async () => {
    const seen = await see(await fetch(`${server.httpUrl}/contracts/openapi`, { headers: { accept: 'image/png' } }));
    expect(seen.status).toBe(406);
    expect(seen.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(seen.text)).toMatchObject({ status: 406, code: 'NOT_ACCEPTABLE' });
  });

  it('answers unknown paths, including file-extension URLs, with a 404 problem document', async () => {
    for (const url of ['/no-such-thing', '/contracts/openapi.json', '/contracts/unknown']) {
      const seen = await see(await fetch(`${server.httpUrl}${url}`));
      const body = await expectContract('GET', url, seen);
      expect(seen.status, url).toBe(404);
      // The same code has the same title everywhere: it comes from the one error catalog.
      expect(body).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Resource not found', instance: url });
      expect(seen.headers.get('x-request-id')).toMatch(/\S+/);
    }
  });

  it('renders the API reference at /docs from local assets only', async () => {
    const page = await fetch(`${server.httpUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // The favicon is an empty data: URL, so the browser asks for no /favicon.ico.
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1] as string)
      .filter((source) => source !== 'data:,');
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      // Assets come from /docs/assets; the only other links are to the published contracts and changelog,
      // the deprecation reference and the usage charts.
      expect(source, 'a URL on another host').toMatch(/^\/(docs\/assets\/|contracts\/|docs\/(deprecations|usage)$)/);
      expect((await fetch(`${server.httpUrl}${source}`)).status, source).toBe(200);
    }
    expect(sources).toContain('/contracts/changelog');
    expect(sources).toContain('/docs/deprecations');
    expect(sources).toContain('/docs/usage');
  });

  it('serves the standard gRPC health service on the internal port to an independent gRPC client', async () => {
    const client = grpcClient({
      address: server.grpcUrl,
      proto: 'grpc/health/v1/health.proto',
      service: 'grpc.health.v1.Health',
      deadlineMs: 2000,
    });
    const check = (service: string) => client.reply('Check', { service });
    try {
      await expect(check('')).resolves.toEqual({ status: 'SERVING' });
      await expect(check('no.such.Service')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
    }
  });
});
