import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'hono';
import { answer } from './edge-headers.js';

const gzipped = promisify(gzip);

/** Bytes a `Response` takes (a Buffer over a plain ArrayBuffer). */
type Bytes = Uint8Array<ArrayBuffer>;

/**
 * A response body built once per process: its bytes, a strong ETag, and a gzip copy made off the event
 * loop on the first request that accepts it (identity until then). Every answer sends the same buffer,
 * so a thousand slow readers hold one copy, not a thousand; a matching `If-None-Match` gets `304`.
 */
export class StaticAsset {
  readonly body: Bytes;
  /** The first 16 hex digits of the body's SHA-256: the ETag's value, and a cache-busting version. */
  readonly version: string;
  readonly etag: string;
  #gzip: Bytes | undefined;
  #compressing: Promise<void> | undefined;

  constructor(
    readonly contentType: string,
    content: string | Buffer,
  ) {
    this.body = (typeof content === 'string' ? Buffer.from(content, 'utf8') : content) as Bytes;
    this.version = createHash('sha256').update(this.body).digest('hex').slice(0, 16);
    this.etag = `"${this.version}"`;
  }

  /** The answer to `c`: 304, the gzip copy, or the body, with `Cache-Control` and any `headers` given. */
  serve(c: Context, cacheControl: string, headers: Record<string, string> = {}): Response {
    const common = { ...headers, etag: this.etag, 'cache-control': cacheControl, vary: 'Accept-Encoding' };
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === this.etag)) {
      return answer(c, null, 304, common);
    }
    const typed = { ...common, 'content-type': this.contentType };
    if (!/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return answer(c, this.body, 200, typed);
    if (this.#gzip) return answer(c, this.#gzip, 200, { ...typed, 'content-encoding': 'gzip' });
    this.#compressing ??= gzipped(this.body).then(
      (compressed) => {
        this.#gzip = compressed as Bytes;
      },
      () => {
        // Left uncompressed: the body is still served as it is.
      },
    );
    return answer(c, this.body, 200, typed);
  }
}
