/**
 * Checks real HTTP responses against contracts/openapi.yaml: the operation exists, the status is one the
 * operation documents, the content type is documented for that status, the body matches its schema and
 * the documented required headers are present. Every REST test goes through `checkedJson`/`expectContract`.
 * A partial answer (the request named `fields`) must match the schema narrowed to those members.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';

const contractPath = path.resolve(import.meta.dirname, '../../contracts/openapi.yaml');

interface ContractChecker {
  api: OpenAPIBackend;
  /** The schema's validator, or that of its partial form when `fields` is given (`partialSchema`). */
  validatorFor(schema: object, fields?: ReadonlySet<string>): ValidateFunction;
}

const checkers = new Map<string, Promise<ContractChecker>>();

/** The checker of contracts/openapi.yaml, or of another checkout's contract (a fixture's). */
function loadChecker(file = contractPath): Promise<ContractChecker> {
  let checker = checkers.get(file);
  if (checker) return checker;
  checker = (async () => {
    // openapi-backend validates documents against OpenAPI 3.0 only; Redocly lints this 3.1 document instead.
    const definition = parseYaml(readFileSync(file, 'utf8'));
    const api = new OpenAPIBackend({ definition, validate: false, quick: true, strict: true });
    await api.init();
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(ajv);
    // By schema, then by the fields of a partial answer ('' for the full one).
    const compiled = new WeakMap<object, Map<string, ValidateFunction>>();
    return {
      api,
      validatorFor(schema, fields) {
        const key = fields ? [...fields].sort().join(',') : '';
        let forms = compiled.get(schema);
        if (!forms) {
          forms = new Map();
          compiled.set(schema, forms);
        }
        let validate = forms.get(key);
        if (!validate) {
          validate = ajv.compile(fields ? partialSchema(schema as JsonSchema, fields) : schema);
          forms.set(key, validate);
        }
        return validate;
      },
    };
  })();
  checkers.set(file, checker);
  return checker;
}

/**
 * The operation that answers `method pathname`: its own, or, under a later version that does not declare
 * it, the newest older version's (spec §9.2 rule 5; src/rest/router.ts).
 */
function inheritedOperation(api: OpenAPIBackend, method: string, pathname: string) {
  const version = /^\/v([1-9][0-9]*)(?=\/)/.exec(pathname);
  const declared = Object.keys(api.definition.paths ?? {}).some((path) => path.startsWith(`${version?.[0]}/`));
  if (version && !declared) return undefined;
  for (let n = Number(version?.[1] ?? 1); n >= 1; n--) {
    const path = version ? pathname.replace(version[0], `/v${n}`) : pathname;
    const operation = api.router.matchOperation({ method, path, headers: {} });
    if (operation || !version) return operation;
  }
  return undefined;
}

type JsonSchema = {
  type?: unknown;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  [keyword: string]: unknown;
};

/**
 * The schema a partial answer matches: `required` narrowed to the requested fields and no member beyond
 * them; on a list envelope (`items` and `hasNext`), of its items, the envelope's own members as they are.
 */
function partialSchema(schema: JsonSchema, fields: ReadonlySet<string>): JsonSchema {
  const items = schema.properties?.items;
  if (schema.properties?.hasNext && items?.type === 'array' && items.items) {
    const partialItems = { ...items, items: partialSchema(items.items, fields) };
    return { ...schema, properties: { ...schema.properties, items: partialItems } };
  }
  return {
    ...schema,
    required: (schema.required ?? []).filter((name) => fields.has(name)),
    propertyNames: { enum: [...fields] },
  };
}

/**
 * The members a request's `fields` names: the query's (comma-separated or repeated) and a JSON body's
 * array (`POST /v1/orders/search`). Undefined when it names none, for a full answer.
 */
function requestedFields(url: string, requestBody: unknown): ReadonlySet<string> | undefined {
  const named = new URL(url, 'http://localhost').searchParams.getAll('fields').flatMap((value) => value.split(','));
  let body = requestBody;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  }
  const inBody = (body as { fields?: unknown } | null | undefined)?.fields;
  if (Array.isArray(inBody)) named.push(...inBody.map(String));
  return named.length > 0 ? new Set(named) : undefined;
}

type ResponseObject = {
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, { required?: boolean }>;
};

function documentedResponse(operation: Operation, status: number): ResponseObject | undefined {
  const responses = (operation.responses ?? {}) as Record<string, ResponseObject>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** A response as the test saw it, with the body already read. */
export interface SeenResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Reads a fetch Response once so that it can be both checked and inspected. */
export async function see(response: Response): Promise<SeenResponse> {
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Fails the test unless the response is what the contract documents for `method path`; returns the parsed
 * JSON body (or undefined when there is none). Unknown routes must answer a documented Problem document.
 * `requestBody` (as sent, or parsed) is read for the `fields` of a search, as the URL's query is.
 */
export async function expectContract(
  method: string,
  url: string,
  seen: SeenResponse,
  contractFile?: string,
  requestBody?: unknown,
): Promise<unknown> {
  const { api, validatorFor } = await loadChecker(contractFile);
  const pathname = new URL(url, 'http://localhost').pathname;
  const operation = inheritedOperation(api, method, pathname);
  const mediaType = seen.headers.get('content-type')?.split(';')[0]?.trim();
  const body = seen.text && mediaType?.endsWith('json') ? JSON.parse(seen.text) : undefined;

  if (!operation || seen.status === 405) {
    // Routes outside the contract (unknown paths, wrong methods) still answer with a documented Problem.
    expect([404, 405], `${method} ${pathname} is not in the contract but answered ${seen.status}`).toContain(
      seen.status,
    );
    expect(mediaType).toBe('application/problem+json');
    const schemas = (api.definition.components?.schemas ?? {}) as Record<string, object>;
    const problem = schemas.Problem;
    expect(problem, 'the contract defines no Problem schema').toBeDefined();
    const validate = validatorFor(problem as object);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    return body;
  }

  const label = `${operation.operationId} answered ${seen.status}`;
  const documented = documentedResponse(operation, seen.status);
  expect(documented, `${label}, which the contract does not document`).toBeDefined();
  if (!documented) return body;

  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required) expect(seen.headers.has(name), `${label} without required header ${name}`).toBe(true);
  }
  if (!documented.content || seen.status === 204 || seen.status === 304) {
    expect(seen.text, `${label} with a body the contract does not document`).toBe('');
    return undefined;
  }
  expect(mediaType, `${label} without a content type`).toBeDefined();
  const media = documented.content[mediaType as string];
  expect(media, `${label} as ${mediaType}, documented: ${Object.keys(documented.content).join(', ')}`).toBeDefined();
  if (media?.schema) {
    const fields = seen.status < 300 ? requestedFields(url, requestBody) : undefined;
    const schema = relaxWithheld(media.schema, withheldProperties(seen.headers, api));
    const validate = validatorFor(schema, fields);
    const form = fields ? ` (partial: ${[...fields].join(',')})` : '';
    expect(validate(body), `${label}${form}: ${JSON.stringify(validate.errors, null, 2)}`).toBe(true);
  }
  return body;
}

/**
 * The component schemas a brownout left properties out of, from the `Brownout` header's
 * `withheld="rest.<Schema>.<property>"` marks, each known by its property names (the dereferenced
 * document holds copies of the component, not the component itself): such an answer is checked against
 * the schema less those properties.
 */
function withheldProperties(headers: Headers, api: OpenAPIBackend): Map<string, Set<string>> {
  const withheld = new Map<string, Set<string>>();
  const schemas = (api.definition.components?.schemas ?? {}) as Record<string, { properties?: object }>;
  for (const [, schema, property] of (headers.get('brownout') ?? '').matchAll(/withheld="rest\.(\w+)\.(\w+)"/g)) {
    const shape = shapeOf(schemas[schema as string]);
    if (shape) withheld.set(shape, new Set([...(withheld.get(shape) ?? []), property as string]));
  }
  return withheld;
}

/** A schema's property names, sorted: what tells an object schema apart in a dereferenced document. */
const shapeOf = (schema: { properties?: object } | undefined) =>
  schema?.properties ? Object.keys(schema.properties).sort().join(',') : undefined;

/** A copy of `schema` in which each object schema of a withheld shape no longer holds those properties. */
function relaxWithheld(schema: object, withheld: Map<string, Set<string>>): object {
  if (withheld.size === 0) return schema;
  const copies = new Map<object, object>();
  const copy = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    const known = copies.get(node);
    if (known) return known;
    const result: Record<string, unknown> | unknown[] = Array.isArray(node) ? [] : {};
    copies.set(node, result);
    for (const [key, value] of Object.entries(node)) (result as Record<string, unknown>)[key] = copy(value);
    const shape = Array.isArray(node) ? undefined : shapeOf(node as { properties?: object });
    const dropped = shape ? withheld.get(shape) : undefined;
    const required = (result as { required?: unknown }).required;
    if (dropped && Array.isArray(required)) {
      (result as { required: string[] }).required = required.filter((name) => !dropped.has(name as string));
      // Withheld means absent: an answer that still carries the property is wrong.
      const properties = (result as { properties?: Record<string, unknown> }).properties;
      if (properties) for (const name of dropped) properties[name] = false;
    }
    return result;
  };
  return copy(schema) as object;
}

/** Fetches, checks the response against the contract and returns status, headers and parsed body. */
/**
 * A GET sent on a kept-alive connection that the server closed while it sat idle fails with ECONNRESET
 * when the close crosses the request (the client and an in-process server share one busy event loop in
 * tests that do seconds of work between requests); a browser or HTTP client retries such a safe request
 * once on a new connection, and so does this.
 */
async function fetchRetryingStaleConnection(url: URL, method: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (method !== 'GET' || code !== 'ECONNRESET') throw error;
    return fetch(url, init);
  }
}

export async function checkedFetch(
  baseUrl: string,
  pathWithQuery: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const method = init.method ?? 'GET';
  const seen = await see(await fetchRetryingStaleConnection(new URL(pathWithQuery, baseUrl), method, init));
  const body = await expectContract(method, pathWithQuery, seen, undefined, init.body);
  return { status: seen.status, headers: seen.headers, body };
}

/** An example the contract documents, where it stands, and what its schema says about it. */
export interface CheckedExample {
  where: string;
  errors: string | undefined;
}

/**
 * Every example the contract documents beside a schema (request bodies, responses, parameters; `example`
 * and each of `examples`), each validated against that schema: `errors` is undefined for a valid one.
 */
export async function documentedExamples(contractFile?: string): Promise<CheckedExample[]> {
  const { api, validatorFor } = await loadChecker(contractFile);
  type Media = { schema?: object; example?: unknown; examples?: Record<string, { value?: unknown }> };
  const checked: CheckedExample[] = [];
  const check = (where: string, media: Media | undefined) => {
    if (!media?.schema) return;
    const values: Array<[string, unknown]> = [
      ...(media.example === undefined ? [] : [['example', media.example] as [string, unknown]]),
      ...Object.entries(media.examples ?? {}).map(([name, example]) => [name, example.value] as [string, unknown]),
    ];
    for (const [name, value] of values) {
      const validate = validatorFor(media.schema);
      const valid = validate(value);
      checked.push({ where: `${where} ${name}`, errors: valid ? undefined : JSON.stringify(validate.errors) });
    }
  };
  for (const operation of api.getOperations()) {
    const label = `${operation.method.toUpperCase()} ${operation.path}`;
    for (const [media, content] of Object.entries((operation.requestBody as { content?: object })?.content ?? {}))
      check(`${label} request ${media}`, content as Media);
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, ResponseObject>))
      for (const [media, content] of Object.entries(response.content ?? {}))
        check(`${label} ${status} ${media}`, content as Media);
    for (const parameter of (operation.parameters ?? []) as Array<Media & { name: string; in: string }>)
      check(`${label} ${parameter.in} ${parameter.name}`, parameter);
  }
  return checked;
}

/** The operations of the contract by operationId: method, path template, parameters and documented responses. */
export async function contractOperations(contractFile?: string): Promise<Map<string, Operation>> {
  const { api } = await loadChecker(contractFile);
  return new Map(api.getOperations().map((operation) => [operation.operationId as string, operation]));
}
