/**
 * How the input rules of the contracts are checked on the HTTP transports: one ajv configuration for the
 * REST contract's JSON Schema and for the schemas `npm run generate` derives from the GraphQL directives,
 * and one way of turning ajv's errors into the problem's `errors[]`, so that the same bad input gets the
 * same code, member pointer and message over REST and GraphQL.
 */
import type { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Big } from 'big.js';
import { DomainError, type ErrorCode, type Violation } from '../core/shared/errors.js';
import { findNulCharacter, NUL_CHARACTER_MESSAGE } from '../core/shared/text.js';

/** One error of an ajv validator (`verbose`: it carries the value that failed). */
export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  data?: unknown;
}

/**
 * The formats the contracts name (ajv-formats: `email`, `uri`, `date`, `date-time`, …; `int64`: an
 * integer JSON parsers keep exact), and `multipleOf` checked on the decimal the client wrote, not in
 * binary floating point, where 19.99 is not a multiple of 0.01. Lengths count characters (code points),
 * as JSON Schema's `maxLength` does: ajv's `unicode` option, on by default, is left on.
 */
export function withContractRules<T extends Ajv>(ajv: T): T {
  addFormats.default(ajv as never);
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', errors: true, validate: multipleOf });
  return ajv;
}

/** ajv's `multipleOf`, checked as decimals; its error is ajv's own. */
function multipleOf(step: number, value: number): boolean {
  if (isDecimalMultiple(step, value)) return true;
  multipleOf.errors = [{ keyword: 'multipleOf', message: `must be multiple of ${step}`, params: { multipleOf: step } }];
  return false;
}
multipleOf.errors = [] as Array<Partial<AjvError>>;

/**
 * Whether `value` is a whole multiple of `step`, as decimals. A JSON or GraphQL number arrives as the double
 * nearest to what was written; its shortest decimal form (what `Big` reads) is that text again for every
 * number of up to 15 significant digits.
 */
export function isDecimalMultiple(step: number, value: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(step) || step <= 0) return false;
  return new Big(value).mod(new Big(step)).eq(0);
}

/**
 * Turns ajv's errors for a request `{path, query, headers, body}` into the problem's `errors[]` and picks
 * the code that describes them: `UNKNOWN_FIELD` when every violation is a body member the schema does not
 * define, else `VALIDATION_FAILED`.
 */
export function validationError(errors: AjvError[]): DomainError {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  let unknownFields = 0;
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    // The `null` alternative of a nullable member (`oneOf: [Address, null]`) says nothing about the value sent.
    if (error.keyword === 'type' && error.params.type === 'null') continue;
    const [, part = '', ...rest] = error.instancePath.split('/');
    // openapi-backend names the header part `header`; GraphQL's twin request (src/graphql) `headers`.
    const where: Violation['in'] =
      part === 'query'
        ? 'query'
        : part === 'header' || part === 'headers'
          ? 'header'
          : part === 'path'
            ? 'path'
            : 'body';
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
    } else if (error.keyword === 'uniqueItems') {
      // ajv names the pair in the order its algorithm met them, which depends on what it knows of the items.
      const [first, second] = [error.params.i, error.params.j].map(Number).sort((a, b) => a - b);
      message = `must NOT have duplicate items (items ## ${first} and ${second} are identical)`;
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
  return new DomainError(code, `The request is invalid: ${summaryOf(violations)}.`, violations);
}

const summaryOf = (violations: Violation[]) =>
  violations.map((v) => `${v.in} ${v.name || '(body)'} ${v.message}`).join('; ');

/**
 * Refuses U+0000 in any text of a request, naming where it is: PostgreSQL cannot store it, and no member
 * of any contract has a use for it (every text member's description says so).
 */
export function rejectNulCharacters(parts: { query?: unknown; headers?: unknown; body?: unknown }): void {
  for (const where of ['query', 'headers', 'body'] as const) {
    const found = findNulCharacter(parts[where]);
    if (found === undefined) continue;
    const violation: Violation =
      where === 'body'
        ? { in: 'body', name: found, message: NUL_CHARACTER_MESSAGE }
        : {
            in: where === 'query' ? 'query' : 'header',
            name: found.slice(1).split('/')[0] ?? '',
            message: NUL_CHARACTER_MESSAGE,
          };
    throw new DomainError('VALIDATION_FAILED', `The request is invalid: ${summaryOf([violation])}.`, [violation]);
  }
}
