import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

type Json = Record<string, any>;

const root = path.resolve(import.meta.dirname, '../..');
const document: Json = parseYaml(readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8'));
const methods = ['get', 'put', 'post', 'patch', 'delete'] as const;
const operations = Object.entries(document.paths as Json).flatMap(([route, item]) =>
  methods.filter((method) => item[method]).map((method) => ({ route, method, operation: item[method] as Json })),
);

function resolve(value: Json): Json {
  if (typeof value?.$ref !== 'string') return value;
  const target = (value.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, key) => node[key], document);
  return resolve(target);
}

describe('contracts/openapi.yaml', () => {
  it('is OpenAPI 3.1 with every operation under /v1 except the unversioned health probes', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const { route } of operations) {
      expect(/^\/health(\/(live|ready))?$/.test(route) || route.startsWith('/v1/'), route).toBe(true);
    }
  });

  it('gives every operation a unique operationId, a summary, a description and tags', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { route, method, operation } of operations) {
      const label = `${method.toUpperCase()} ${route}`;
      expect(operation.operationId, label).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, label).toBeTruthy();
      expect(operation.description, label).toBeTruthy();
      expect(operation.tags?.length, label).toBeGreaterThan(0);
    }
  });

  it('documents a problem+json response for 400, 406 and 500 on every operation (the probes: 500)', () => {
    for (const { route, method, operation } of operations) {
      for (const status of ['400', '406', '500']) {
        // The health probes ignore Accept and query parameters: only their 500 is a problem.
        if (route.startsWith('/health') && status !== '500') continue;
        const response = operation.responses[status] && resolve(operation.responses[status]);
        expect(response?.content?.['application/problem+json'], `${method} ${route} ${status}`).toBeDefined();
      }
    }
  });

  it('documents 401 on every operation that needs a credential and 404 on every operation with an id', () => {
    for (const { route, method, operation } of operations) {
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      if (!isPublic) expect(operation.responses['401'], `${method} ${route}`).toBeDefined();
      if (route.includes('{')) expect(operation.responses['404'], `${method} ${route}`).toBeDefined();
    }
  });

  it('keeps the error code a plain string, so that adding a code is not a breaking change', () => {
    const code = document.components.schemas.Problem.properties.code;
    expect(code.type).toBe('string');
    expect(code.enum).toBeUndefined();
  });

  it('keeps the legacy Order.amount as a number, not deprecated, beside the opt-in amountDetail', () => {
    const order = document.components.schemas.Order;
    expect(resolve(order.properties.amount).type).toBe('number');
    expect(order.properties.amount.deprecated).toBeUndefined();
    expect(order.required).toContain('amount');
    expect(order.required).not.toContain('amountDetail');
  });

  it('follows the spec naming rules: plural kebab-case nouns, no file extensions, at most one level of nesting', () => {
    for (const { route } of operations) {
      const segments = route.split('/').filter(Boolean);
      const nouns = segments.filter((segment) => !segment.startsWith('{') && segment !== 'v1');
      for (const noun of nouns) expect(noun, route).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(route, route).not.toMatch(/\.[a-z]+$/);
      expect(nestingProblem(route), route).toBeUndefined();
    }
    // The rule itself refuses what it must: two levels of nesting, with or without a second id.
    expect(nestingProblem('/v1/orders/{orderId}/items/{itemId}/notes')).toBeDefined();
    expect(nestingProblem('/v1/orders/{orderId}/items/notes')).toBeDefined();
    expect(nestingProblem('/v1/orders/{orderId}/{itemId}')).toBeDefined();
    expect(nestingProblem('/v1/products/{productId}/ratings/me')).toBeUndefined();
  });

  /** The operations that answer a list: their 2xx JSON answer is a `…List` schema. */
  const listSchemaOf = (operation: Json) => {
    const success = operation.responses['200'] ?? operation.responses['201'];
    const ref = success?.content?.['application/json']?.schema?.$ref as string | undefined;
    return ref?.endsWith('List') ? ref : undefined;
  };
  const lists = operations.filter(({ operation }) => listSchemaOf(operation));

  it('answers every list with the envelope {items, nextCursor, hasNext, totalCount}, never a bare array', () => {
    expect(lists.map(({ operation }) => operation.operationId).sort()).toEqual(
      [
        'createDeprecationNotices',
        'getBrownoutSchedule',
        'getDeprecationCallers',
        'listApiKeyRequestShapes',
        'getDeprecationReport',
        'listApiKeys',
        'listDeprecationNotices',
        'listEvents',
        'listWebhookDeliveries',
        'listWebhookEndpoints',
        'listOrderItems',
        'listOrders',
        'listOwnRequestShapes',
        'listProducts',
        'listUsers',
        'searchOrders',
      ].sort(),
    );
    for (const { operation } of lists) {
      const schema = resolve({ $ref: listSchemaOf(operation) });
      expect(schema.type, operation.operationId).toBe('object');
      expect(Object.keys(schema.properties).sort(), operation.operationId).toEqual([
        'hasNext',
        'items',
        'nextCursor',
        'totalCount',
      ]);
      expect(schema.required, operation.operationId).toEqual(['items', 'hasNext']);
    }
    // Every schema named as a list is the envelope, whichever operation answers it.
    for (const [name, schema] of Object.entries(document.components.schemas as Json).filter(([name]) =>
      name.endsWith('List'),
    )) {
      expect(Object.keys(schema.properties ?? {}).sort(), name).toEqual([
        'hasNext',
        'items',
        'nextCursor',
        'totalCount',
      ]);
    }
  });

  it('offers cursor paging only, with size, withTotal and a sort parameter on every list that is read', () => {
    for (const { operation } of lists.filter(({ method }) => method === 'get')) {
      const names = operation.parameters.map((parameter: Json) => resolve(parameter).name);
      expect(names, operation.operationId).toEqual(expect.arrayContaining(['cursor', 'size', 'withTotal', 'sort']));
      for (const offsetParameter of ['page', 'offset', 'limit']) expect(names).not.toContain(offsetParameter);
    }
  });

  it('rejects unknown members in every request body', () => {
    for (const { route, method, operation } of operations) {
      for (const media of Object.values((operation.requestBody?.content ?? {}) as Json)) {
        expect(resolve(media.schema).additionalProperties, `${method} ${route}`).toBe(false);
      }
    }
  });
});

/**
 * Why a path nests more than one level, or undefined: `collection[/id[/sub-collection[/id]]]`, where an id
 * is a path parameter or the `me` alias, and a last segment after a collection may also be a singleton
 * (`/v1/orders/search`, `/health/ready`, `/v1/orders/{orderId}/shipment`).
 */
function nestingProblem(route: string): string | undefined {
  const segments = route.split('/').filter((segment) => segment && segment !== 'v1');
  const isId = (segment: string | undefined) => segment === 'me' || Boolean(segment?.startsWith('{'));
  if (segments.length > 4) return 'more than a collection, an id, a sub-collection and an id';
  if (isId(segments[0])) return 'starts with an id';
  if (segments.length > 2 && !isId(segments[1])) return 'a second segment that is not an id has children';
  if (segments.length > 2 && isId(segments[2])) return 'two ids in a row';
  if (segments.length === 4 && !isId(segments[3])) return 'a sub-collection nested under a sub-collection';
  return undefined;
}
