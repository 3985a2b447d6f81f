/**
 * Every operation of the REST contract and every entry point of the GraphQL schema declares the one scope
 * it needs (`x-scope`, `@scope`), from the core's list; the server reads these declarations at start, so an
 * operation without one would be served unguarded or not at all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PUBLIC, SCOPES, SELF } from '../../src/core/shared/scope-catalog.js';
import { loadRestContract } from '../../src/rest/contract.js';

type Json = Record<string, unknown>;
const root = path.resolve(import.meta.dirname, '../..');
const openapiText = readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8');
const sdl = readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8');
const declarations: readonly string[] = [...SCOPES, PUBLIC, SELF];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Each operation as `METHOD path` with its `x-scope` and whether it is open (`security: []`). */
function restDeclarations(document: Json) {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([route, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method] as Json;
      const open = Array.isArray(operation.security) && operation.security.length === 0;
      const statuses = Object.keys(operation.responses as Json);
      return { name: `${method.toUpperCase()} ${route}`, scope: operation['x-scope'], open, statuses };
    }),
  );
}

/** Each field of Query and Mutation with the `name` of its `@scope`, if any. */
function graphqlDeclarations(schema: string) {
  return parse(schema).definitions.flatMap((definition) =>
    definition.kind === Kind.OBJECT_TYPE_DEFINITION && ['Query', 'Mutation'].includes(definition.name.value)
      ? (definition.fields ?? []).map((field) => {
          const argument = field.directives
            ?.find((directive) => directive.name.value === 'scope')
            ?.arguments?.find((a) => a.name.value === 'name')?.value;
          return {
            name: `${definition.name.value}.${field.name.value}`,
            scope: argument?.kind === Kind.STRING ? argument.value : undefined,
          };
        })
      : [],
  );
}

const undeclared = (entries: Array<{ name: string; scope: unknown }>) =>
  entries.filter(({ scope }) => typeof scope !== 'string' || !declarations.includes(scope)).map(({ name }) => name);

describe('scope declarations in the contracts', () => {
  const document = parseYaml(openapiText) as Json;

  it('every REST operation declares a known scope, and `public` exactly where no key is needed', () => {
    const operations = restDeclarations(document);
    expect(operations.length).toBeGreaterThan(40);
    expect(undeclared(operations)).toEqual([]);
    for (const { name, scope, open } of operations) expect(scope === PUBLIC, name).toBe(open);
  });

  it('every operation that needs a scope documents the 401 of a missing key and the 403 of a missing scope', () => {
    const guarded = restDeclarations(document).filter(({ scope }) => scope !== PUBLIC);
    const undocumented = guarded.filter(({ statuses }) => !statuses.includes('401') || !statuses.includes('403'));
    expect(undocumented.map(({ name }) => name)).toEqual([]);
  });

  it('every field of Query and Mutation declares a known scope with @scope', () => {
    const fields = graphqlDeclarations(sdl);
    expect(fields.length).toBeGreaterThan(20);
    expect(undeclared(fields)).toEqual([]);
    // The same choice as REST's: only product reads are public.
    expect(fields.filter(({ scope }) => scope === PUBLIC).map(({ name }) => name)).toEqual([
      'Query.product',
      'Query.products',
    ]);
  });

  it("lists the core's scopes, no more and no fewer, as the contract's ApiKeyScope", () => {
    const schemas = (document.components as Json).schemas as Record<string, { enum: string[] }>;
    expect(schemas.ApiKeyScope?.enum).toEqual([...SCOPES]);
  });

  it('the checks find an operation or a field without a declaration, and the server refuses to load one', async () => {
    const broken = parseYaml(openapiText) as Json;
    const createOrder = ((broken.paths as Json)['/v1/orders'] as Json).post as Json;
    delete createOrder['x-scope'];
    expect(undeclared(restDeclarations(broken))).toEqual(['POST /v1/orders']);
    await expect(loadRestContract(broken)).rejects.toThrow(/createOrder declares no known scope/);
    const typo = sdl.replace('@scope(name: "orders:write")', '@scope(name: "order:write")');
    expect(undeclared(graphqlDeclarations(typo))).toEqual(['Mutation.createOrder']);
  });
});
