import { readFileSync } from 'node:fs';
import path from 'node:path';
import { graphqlRules, openapiRules, protoRules, type Rules, rulesOf } from '@order-api/contract-gate';
import { buildSchema, isInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TWINS, twinsOf } from '../../scripts/contract-twins.js';

// One input of the core carries the same rule in every contract that takes it. A rule changed in
// one contract and not in its twin fails here (scripts/contract-twins.ts names the twins).
const root = path.resolve(import.meta.dirname, '../..');
const contracts = path.join(root, 'contracts');
const sdl = readFileSync(path.join(contracts, 'schema.graphql'), 'utf8');
const book = {
  openapi: openapiRules(parse(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8'))),
  graphql: graphqlRules(sdl),
  proto: protoRules(contracts),
};

/** The value rules of a member; `required` compared only between members of twin objects. */
const valueRules = (rules: Rules | undefined, withRequired: boolean) =>
  Object.fromEntries(Object.entries(rules ?? {}).filter(([key]) => withRequired || key !== 'required'));

/** Every member of GraphQL and the proto with a twin, and the twin: the pairs the contracts must agree on. */
function pairs(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const contract of ['graphql', 'proto'] as const) {
    for (const item of book[contract].keys()) {
      for (const twin of twinsOf(`${contract}:${item}`)) {
        if (rulesOf(book, twin, contract) !== undefined) out.push([`${contract}:${item}`, twin]);
      }
    }
  }
  return out;
}

describe('input rules shared by two contracts', () => {
  it('names real items on both sides of every twin', () => {
    const missing = TWINS.flat().filter((reference) => {
      const [contract, item] = reference.split(/:(.*)/s) as [keyof typeof book, string];
      return !book[contract].has(item) && !buildSchema(sdl).getType(item);
    });
    expect(missing).toEqual([]);
  });

  it('pairs every member of a GraphQL input with a member of its REST twin', () => {
    const schema = buildSchema(sdl);
    const unpaired: string[] = [];
    for (const [a, b] of TWINS) {
      if (!a.startsWith('graphql:') || !b.startsWith('openapi:')) continue;
      const type = schema.getType(a.slice('graphql:'.length));
      if (!isInputObjectType(type)) continue;
      for (const field of Object.keys(type.getFields())) {
        if (!book.openapi.has(`${b.slice('openapi:'.length)}.${field}`)) unpaired.push(`${type.name}.${field}`);
      }
    }
    expect(unpaired).toEqual([]);
  });

  it('gives every GraphQL argument and input field that carries a rule a twin', () => {
    const alone = [...book.graphql]
      .filter(([, rules]) => Object.keys(valueRules(rules, false)).length > 0)
      .map(([item]) => item)
      .filter((item) => twinsOf(`graphql:${item}`).length === 0);
    expect(alone).toEqual([]);
  });

  it.each(pairs())('states the same rules for %s and %s', (mine, twin) => {
    const [contract, item] = mine.split(/:(.*)/s) as ['graphql' | 'proto', string];
    const memberPair = contract === 'graphql' && twin.slice('openapi:'.length).includes('.');
    expect(valueRules(book[contract].get(item), memberPair)).toEqual(
      valueRules(rulesOf(book, twin, contract), memberPair),
    );
  });

  it('finds the pairs it compares (a twin table that matched nothing would prove nothing)', () => {
    const compared = pairs();
    expect(compared.length).toBeGreaterThan(80);
    expect(compared).toContainEqual(['graphql:CreateProductInput.price', 'openapi:ProductCreate.price']);
    expect(compared).toContainEqual(['proto:ReserveRequest.sku', 'openapi:ProductCreate.sku']);
  });
});

describe('the rule vocabulary', () => {
  it('reads each contract the same way', () => {
    expect(book.openapi.get('ProductCreate.price')).toEqual({
      minimum: 0,
      maximum: 1_000_000,
      multipleOf: 0.01,
      required: true,
    });
    expect(book.graphql.get('CreateProductInput.price')).toEqual({
      minimum: 0,
      maximum: 1_000_000,
      multipleOf: 0.01,
      required: true,
    });
    expect(book.openapi.get('OrderSearch.from')).toEqual({ format: 'date | date-time', maxLength: 64 });
    expect(book.proto.get('ReserveRequest.quantity')).toEqual({ minimum: 1, maximum: 2_147_483_647 });
    expect(rulesOf(book, 'openapi:Id', 'proto')).toEqual({ pattern: '^[1-9][0-9]{0,15}$' });
  });
});
