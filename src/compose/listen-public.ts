/** Listening on the public HTTP/1.1 port. */
import { type HttpBindings, serve } from '@hono/node-server';

/**
 * The request line and headers the public port reads (Node's default is 16 KiB): every query string the
 * contracts allow fits, a cursor of 2048 characters percent-encoded included; more is `431`.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/** Listens on the public port with the app's fetch handler; resolves once it is listening. */
export function listenPublic(
  fetch: (request: Request, env: HttpBindings) => Response | Promise<Response>,
  port: number,
  hostname: string,
) {
  return new Promise<ReturnType<typeof serve>>((resolve) => {
    const server = serve(
      { fetch: fetch as never, port, hostname, serverOptions: { maxHeaderSize: MAX_HEADER_BYTES } },
      () => resolve(server),
    );
  });
}
