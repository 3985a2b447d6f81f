import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Hono } from 'hono';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { listenPublic } from '../../src/compose/listen-public.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { observeRequests } from '../../src/observability/observe-requests.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

describe('request observation', () => {
  it('records a request whose client went away as 499, not as the 5xx its abandoned work ended with', async () => {
    const lines: Array<{ level: number; status: number; msg: string }> = [];
    const logger = pino(
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()));
          done();
        },
      }),
    );
    const metrics = createMetrics();
    const app = new Hono();
    app.use(observeRequests({ logger, metrics, routeOf: () => 'slow' }));
    // Work that outlives its client and then fails, as a placement cut off by its client's abort does.
    app.get('/slow', async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return c.json({ code: 'UPSTREAM_TIMEOUT' }, 504);
    });
    server = (await listenPublic(app.fetch, 0, '127.0.0.1')) as Server;
    const { port } = server.address() as AddressInfo;

    const gone = await fetch(`http://127.0.0.1:${port}/slow`, { signal: AbortSignal.timeout(50) }).catch(
      (error: Error) => error.name,
    );
    expect(gone).toBe('TimeoutError');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answered = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(answered.status).toBe(504);

    const text = await metrics.registry.metrics();
    expect(text).toContain('http_requests_total{method="GET",route="slow",status="499"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="slow",status="504"} 1');
    expect(lines.map(({ level, status, msg }) => ({ level, status, msg }))).toEqual([
      { level: 30, status: 499, msg: 'client went away before the answer' },
      { level: 50, status: 504, msg: 'request failed' },
    ]);
  });
});
