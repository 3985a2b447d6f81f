import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useRequestBodyLimit } from './use-request-body-limit.js';

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Query { echo(text: String): String }',
    resolvers: { Query: { echo: (_, a) => a.text } },
  }),
  maxRequestBodySize: false,
  plugins: [useRequestBodyLimit(200)],
  logging: false,
});

const body = (text: string) => JSON.stringify({ query: `{ echo(text: "${text}") }` });

/** A POST whose body arrives in pieces and without Content-Length, as a chunked upload does. */
function chunked(text: string): Request {
  const bytes = new TextEncoder().encode(body(text));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 50) controller.enqueue(bytes.slice(at, at + 50));
      controller.close();
    },
  });
  return new Request('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}

const declared = (text: string, length = String(new TextEncoder().encode(body(text)).length)) =>
  new Request('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': length },
    body: body(text),
  });

describe('the GraphQL request body limit', () => {
  it('answers bodies within the limit, declared or streamed', async () => {
    for (const request of [declared('short'), chunked('short')]) {
      const response = await yoga.fetch(request);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { echo: 'short' } });
    }
  });

  it('refuses a declared length over the limit with 413 REQUEST_ENTITY_TOO_LARGE', async () => {
    const response = await yoga.fetch(declared('x'.repeat(300)));
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0]).toMatchObject({
      message: 'Request body too large',
      extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' },
    });
  });

  it('refuses a streamed body once more than the limit has arrived', async () => {
    const response = await yoga.fetch(chunked('x'.repeat(300)));
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('refuses a Content-Length that is not one number with 400', async () => {
    const response = await yoga.fetch(declared('short', '10, 10'));
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});
