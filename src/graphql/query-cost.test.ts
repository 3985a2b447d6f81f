import { readFileSync } from 'node:fs';
import path from 'node:path';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost } from './query-cost.js';

const schema = buildSchema(readFileSync(path.resolve(import.meta.dirname, '../../contracts/schema.graphql'), 'utf8'));

/** The cost graphql-armor's cost limit computes for a document (literal `first` only, as it reads them). */
function armorCost(query: string): number {
  let cost = Number.NaN;
  validate(schema, parse(query), [costLimitRule({ maxCost: 1e9, onAccept: [(_, { n }) => (cost = n)] })]);
  return cost;
}

describe('operationCost', () => {
  it.each([
    '{ orders(first: 20) { id user { name } } }',
    '{ product(id: 1) { name price } }',
    '{ ordersConnection(first: 20) { nodes { id status amount createdAt user { name } } pageInfo { endCursor hasNextPage } } }',
    '{ orders(first: 100) { user { name } product { name rating } shipment { status } } }',
    'query { a: products(first: 3) { nodes { ...P } } } fragment P on Product { id name }',
    '{ order(id: 1) { ... on Order { id user { name } } } }',
  ])('is the cost limit’s cost for %s', (query) => {
    expect(operationCost(parse(query), null, {})).toBe(armorCost(query));
  });

  it('charges nothing for introspection, and the rest of the operation as without it', () => {
    expect(operationCost(parse(getIntrospectionQuery({ descriptions: true })), null, {})).toBe(0);
    const data = '{ orders(first: 20) { id user { name } } }';
    const mixed = '{ __type(name: "Order") { fields { name type { name } } } orders(first: 20) { id user { name } } }';
    expect(operationCost(parse(mixed), null, {})).toBe(operationCost(parse(data), null, {}));
  });

  it('reads `first` from variables too', () => {
    const query = 'query Page($n: Int) { orders(first: $n) { id user { name } } }';
    expect(operationCost(parse(query), 'Page', { n: 20 })).toBe(175);
    expect(operationCost(parse(query), 'Page', {})).toBe(8.75);
  });
});
