import { describe, expect, it } from 'vitest';
import type { RegistryItem } from '../registry.js';
import { restMatcher } from './rest.js';

const parameter = (where: string, name: string): RegistryItem => ({
  id: `rest.getThing.${where}.${name}`,
  protocol: 'rest',
  status: 'deprecated',
  name: `GET /v1/things/{thingId} ${name}`,
  deprecated: '2026-11-01',
  sunset: '2027-06-30',
  reason: null,
  replacement: null,
  link: '/docs/deprecations',
  match: { on: 'parameter', operationId: 'getThing', in: where, name },
});

const document = {
  paths: { '/v1/things/{thingId}': { get: { operationId: 'getThing', responses: { '200': {} } } } },
};
const items = [parameter('path', 'thingId'), parameter('query', 'legacy'), parameter('header', 'X-Legacy')];
const matcher = restMatcher({ items }, document);
const used = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  matcher.sent('getThing', { query, header: (name) => headers[name], body: undefined }).map((item) => item.id);

describe('restMatcher.sent', () => {
  it('counts a deprecated path parameter on every request of its operation', () => {
    expect(used({})).toEqual(['rest.getThing.path.thingId']);
  });

  it('counts a query parameter or a header only when the request sends it', () => {
    expect(used({ legacy: '1' }, { 'x-legacy': 'yes' })).toEqual([
      'rest.getThing.path.thingId',
      'rest.getThing.query.legacy',
      'rest.getThing.header.X-Legacy',
    ]);
  });
});
