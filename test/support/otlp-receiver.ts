import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, flattened with its instrumentation scope. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind). */
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP trace receiver: what a collector would be, keeping every span it is sent. */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Resolves with the spans of `traceId` once `done` accepts them (rejects after `timeoutMs`). */
  waitForTrace(traceId: string, done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface ExportRequest {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<
        Omit<ReceivedSpan, 'scope' | 'attributes'> & { attributes?: Array<{ key: string; value: AnyValue }> }
      >;
    }>;
  }>;
}

const plainValue = (value: AnyValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;

/**
 * Starts a receiver on a free loopback port accepting `POST /v1/traces` in OTLP's JSON encoding (the
 * server under test is started with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`); anything else is 415.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        request.headers['content-type'] !== 'application/json'
      ) {
        response.writeHead(415).end();
        return;
      }
      const exported = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const resource of exported.resourceSpans ?? [])
        for (const scoped of resource.scopeSpans ?? [])
          for (const span of scoped.spans ?? [])
            spans.push({
              ...span,
              // A root span's parent is absent or empty, depending on the exporter.
              parentSpanId: span.parentSpanId || undefined,
              scope: scoped.scope?.name ?? '',
              attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, plainValue(value)])),
            });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    async waitForTrace(traceId, done, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const trace = spans.filter((span) => span.traceId === traceId);
        if (done(trace)) return trace;
        if (Date.now() > deadline)
          throw new Error(`trace ${traceId} incomplete after ${timeoutMs} ms:\n${JSON.stringify(trace, null, 1)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
