/**
 * The request body limit of `/graphql` (GRAPHQL_MAX_BODY_BYTES, REST's 1 MiB by default), with Yoga's codes
 * and messages (413 `REQUEST_ENTITY_TOO_LARGE`, 400 for a malformed `Content-Length`), checked from `Content-Length` when the
 * request declares it: HTTP/1.1 framing then guarantees the body is no longer. Only a body without one
 * (chunked) is counted as it streams in. Yoga's own plugin pipes every body through a counting stream,
 * which cost about a tenth of the CPU of a small operation; create Yoga with `maxRequestBodySize: false`
 * and use this instead.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/shared/errors.js';
import { httpStatusOf } from '../http/http-status.js';

const tooLarge = () =>
  new GraphQLError('Request body too large', {
    extensions: {
      http: { status: httpStatusOf.REQUEST_ENTITY_TOO_LARGE },
      code: 'REQUEST_ENTITY_TOO_LARGE' satisfies ErrorCode,
    },
  });

/** Refuses bodies over `limit` bytes before they are parsed. */
export function useRequestBodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const declared = request.headers.get('content-length');
      if (declared !== null) {
        if (!/^\d+$/.test(declared)) {
          throw new GraphQLError('Content-Length header is invalid.', {
            extensions: { http: { status: httpStatusOf.BAD_REQUEST }, code: 'BAD_REQUEST' satisfies ErrorCode },
          });
        }
        if (Number(declared) > limit) throw tooLarge();
        return;
      }
      if (!requestParser || !request.body) return;
      const parse = requestParser;
      setRequestParser((unlimited) => parse(counted(unlimited, limit, fetchAPI)));
    },
  };
}

/** The request with a body that errors once more than `limit` bytes have streamed in. */
function counted(
  request: Request,
  limit: number,
  fetchAPI: { Request: typeof Request; TransformStream: typeof TransformStream },
): Request {
  const body = request.body;
  if (!body) return request;
  let read = 0;
  // A native stream pipes only into a native transform, the fetch ponyfill's only into its own.
  const Transform = body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  const limited = body.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: limited,
    duplex: 'half',
  } as RequestInit);
}
