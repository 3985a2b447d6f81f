/**
 * Reading a REST request: its URL, `Accept`, query and body, each refused with the catalog's code when it
 * breaks a rule of the API (docs/decisions.md §3).
 */

import type { Context } from 'hono';
import Negotiator from 'negotiator';
import { DomainError, type Violation } from '../core/shared/errors.js';
import { INPUT_DEPTH_MESSAGE, nestsDeeperThan } from '../core/shared/text.js';
import { catalogProblem } from '../http/problem.js';
import type { RestContract } from './contract.js';

/** Request bodies above this are refused with 413 (docs/decisions.md §3). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What this API produces. */
export const PRODUCED = ['application/json', 'application/problem+json'];

/**
 * The path (as sent, not decoded) and query string of a request URL. The router matches the raw path and
 * decodes parameters itself; parsing the whole URL with `new URL` on every request cost more than both.
 */
export function splitUrl(href: string): { pathname: string; search: string } {
  const start = href.indexOf('/', href.indexOf('//') + 2);
  const hash = href.indexOf('#', start);
  const end = hash < 0 ? href.length : hash;
  const query = href.indexOf('?', start);
  return query < 0 || query > end
    ? { pathname: href.slice(start, end), search: '' }
    : { pathname: href.slice(start, query), search: href.slice(query + 1, end) };
}

/**
 * Whether an `Accept` header admits one of the media types this API produces. Clients send a handful of
 * distinct values, so answers are kept (up to 500 values, then forgotten and learned again).
 */
const acceptAnswers = new Map<string, boolean>();
export function acceptable(accept = '*/*'): boolean {
  let answer = acceptAnswers.get(accept);
  if (answer === undefined) {
    answer = new Negotiator({ headers: { accept } }).mediaType(PRODUCED) !== undefined;
    if (acceptAnswers.size >= 500) acceptAnswers.clear();
    acceptAnswers.set(accept, answer);
  }
  return answer;
}

/**
 * The query of a request: only names the operation defines, each once; a list parameter may also be
 * repeated (`status=PAID&status=SHIPPED`, what generated clients send by default), read as the
 * comma-separated form. Collected in a Map: a name such as `__proto__` or `constructor` is a parameter
 * like any other, not a property of Object.prototype. Throws UNKNOWN_PARAMETER naming the others.
 */
export function readQuery(search: string, contract: RestContract, operationId: string): Record<string, string> {
  if (search === '' || search === '?') return {};
  const sent = new Map<string, string>();
  const repeated = new Set<string>();
  const lists = contract.listParameters(operationId);
  for (const [name, value] of new URLSearchParams(search)) {
    const previous = sent.get(name);
    if (previous !== undefined && lists.has(name)) sent.set(name, `${previous},${value}`);
    else {
      if (previous !== undefined) repeated.add(name);
      sent.set(name, value);
    }
  }
  const query: Record<string, string> = Object.fromEntries(sent);
  const known = contract.queryParameters(operationId);
  const queryViolations: Violation[] = [
    ...Object.keys(query)
      .filter((name) => !known.has(name))
      .map((name) => ({ in: 'query' as const, name, message: 'is not a parameter of this operation' })),
    ...[...repeated].map((name) => ({
      in: 'query' as const,
      name,
      message: 'is given more than once',
    })),
  ];
  if (queryViolations.length > 0) {
    throw new DomainError(
      'UNKNOWN_PARAMETER',
      `Unknown or repeated query parameters: ${queryViolations.map((v) => v.name).join(', ')}.`,
      queryViolations,
    );
  }
  return query;
}

/** Reads a JSON body where the operation takes one: 415 for other media types, 413 above 1 MiB. */
export async function readBody(
  c: Context,
  requestBody: { content?: Record<string, unknown> } | undefined,
): Promise<unknown | Response> {
  if (!requestBody?.content) return undefined;
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_BODY_BYTES) return catalogProblem(c, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB.');
  const mediaType = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  const accepted = Object.keys(requestBody.content);
  const raw = await readAtMost(c.req.raw.body, MAX_BODY_BYTES);
  if (!raw) return catalogProblem(c, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB.');
  if (raw.byteLength === 0 && !mediaType) return undefined;
  if (!mediaType || !accepted.includes(mediaType)) {
    return catalogProblem(c, 'UNSUPPORTED_MEDIA_TYPE', `Send the body as ${accepted.join(' or ')}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new DomainError('MALFORMED_JSON', 'The body is not valid JSON.', [
      { in: 'body', name: '', message: 'is not valid JSON' },
    ]);
  }
  if (nestsDeeperThan(parsed)) {
    throw new DomainError('VALIDATION_FAILED', `The body ${INPUT_DEPTH_MESSAGE}.`, [
      { in: 'body', name: '', message: INPUT_DEPTH_MESSAGE },
    ]);
  }
  return parsed;
}

/**
 * Reads a body of at most `limit` bytes; undefined when it is longer. A longer body is not read further
 * nor cancelled (cancelling would reset the connection before the 413 is sent); the HTTP server drains it
 * after the answer.
 */
async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length);
}
