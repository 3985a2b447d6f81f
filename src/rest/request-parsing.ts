/**
 * Reading a REST request: its URL, `Accept`, query and body, each refused with the catalog's code when it
 * breaks a rule of the API (docs/decisions.md §3), and ajv's violations turned into the problem's errors.
 */

import type { Context } from 'hono';
import Negotiator from 'negotiator';
import { DomainError, type ErrorCode, type Violation } from '../core/errors.js';
import { findNulCharacter, INPUT_DEPTH_MESSAGE, NUL_CHARACTER_MESSAGE, nestsDeeperThan } from '../core/text.js';
import { catalogProblem } from '../http/problem.js';
import type { RestContract } from './contract.js';

/** Request bodies above this are refused with 413 (docs/decisions.md §3). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What this API produces. */
export const PRODUCED = ['application/json', 'application/problem+json'];

export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The value that failed (ajv's `verbose`, which contract.ts turns on). */
  data?: unknown;
}

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

/** Refuses U+0000 in any query value or body string, naming where it is (PostgreSQL cannot store it). */
export function rejectNulCharacters(query: Record<string, string>, body: unknown): void {
  const inQuery = findNulCharacter(query);
  const inBody = inQuery === undefined ? findNulCharacter(body) : undefined;
  if (inQuery === undefined && inBody === undefined) return;
  const violation: Violation =
    inQuery !== undefined
      ? { in: 'query', name: inQuery.slice(1), message: NUL_CHARACTER_MESSAGE }
      : { in: 'body', name: inBody ?? '', message: NUL_CHARACTER_MESSAGE };
  throw new DomainError(
    'VALIDATION_FAILED',
    `The request is invalid: ${violation.in} ${violation.name || '(body)'} ${NUL_CHARACTER_MESSAGE}.`,
    [violation],
  );
}

/** Turns ajv's errors into the problem's `errors[]` and picks the code that describes them. */
export function validationError(errors: AjvError[]): DomainError {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  let unknownFields = 0;
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const [, part = '', ...rest] = error.instancePath.split('/');
    const where: Violation['in'] =
      part === 'query' ? 'query' : part === 'headers' ? 'header' : part === 'path' ? 'path' : 'body';
    let name = where === 'body' ? (rest.length ? `/${rest.join('/')}` : '') : (rest[0] ?? '');
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      const extra = String(error.params.additionalProperty);
      name = where === 'body' ? `${name}/${extra}` : extra;
      message = where === 'body' ? 'is not a member of this schema' : 'is not a parameter of this operation';
      if (where === 'body') unknownFields++;
    } else if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      name = where === 'body' ? `${name}/${missing}` : missing;
      message = 'is required';
    } else if (error.keyword === 'enum') {
      const allowed = (error.params.allowedValues as unknown[]).join(', ');
      message =
        error.data === undefined
          ? `must be one of ${allowed}`
          : `${JSON.stringify(error.data)} is not one of ${allowed}`;
    } else if (error.keyword === 'type' && where === 'query' && error.params.type === 'array') {
      // A list parameter is split (or wrapped) before validation: only an empty value is not an array.
      message = 'must name at least one value';
    }
    const key = `${where} ${name} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push({ in: where, name, message });
  }
  if (violations.length === 0) violations.push({ in: 'body', name: '', message: 'is required' });
  const code: ErrorCode =
    unknownFields > 0 && unknownFields === violations.length ? 'UNKNOWN_FIELD' : 'VALIDATION_FAILED';
  const summary = violations.map((v) => `${v.in} ${v.name || '(body)'} ${v.message}`).join('; ');
  return new DomainError(code, `The request is invalid: ${summary}.`, violations);
}
