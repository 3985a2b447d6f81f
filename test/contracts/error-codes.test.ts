import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ErrorCode, type ErrorSpec, errorCatalog } from '../../src/core/shared/errors.js';
import { BROWNOUT_OF_INPUT_STATUS, httpStatusOf } from '../../src/http/http-status.js';

// The contracts list the error codes by hand, for the people who read them; the core's catalog is the one
// list the code uses. These tests keep the two in step.
const root = path.resolve(import.meta.dirname, '../..');
const openapi = parseYaml(readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8')) as {
  info: { description: string };
};
const sdl = readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8');

const allCodes = Object.keys(errorCatalog) as ErrorCode[];
const flagged = (flag: 'graphqlOnly' | 'restOnly' | 'inventoryOnly') =>
  allCodes.filter((code) => (errorCatalog[code] as ErrorSpec)[flag]);
const graphqlOnly = flagged('graphqlOnly');
const restCodes = allCodes.filter((code) => !graphqlOnly.includes(code) && !flagged('inventoryOnly').includes(code));
const graphqlFieldCodes = restCodes.filter((code) => !flagged('restOnly').includes(code));
const codesIn = (text: string) => [...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] as string);
const sorted = (codes: Iterable<string>) => [...new Set(codes)].sort();

/** The `| code | status | meaning |` table of the REST description: each code with its status. */
function restErrorTable(description: string): Map<string, number[]> {
  const table = new Map<string, number[]>();
  for (const row of description.split('\n')) {
    const cells = row.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || !/^\d{3}$/.test(cells[2] as string)) continue;
    for (const code of codesIn(cells[1] as string)) table.set(code, [...(table.get(code) ?? []), Number(cells[2])]);
  }
  return table;
}

/** The statuses a code is answered with: its own, and the second one the contract documents for it. */
const statusesOf = (code: ErrorCode): number[] =>
  code === 'BROWNOUT' ? [httpStatusOf[code], BROWNOUT_OF_INPUT_STATUS] : [httpStatusOf[code]];

/**
 * The codes the GraphQL description names: the field errors in its Errors paragraph, and GraphQL's own
 * (everything from its request errors on: limits, the time-out, persisted operations).
 */
function graphqlCodeLists(schema: string): { shared: string[]; requestErrors: string[] } {
  const description = schema.slice(0, schema.indexOf('"""', 3));
  const errors = description.slice(description.indexOf('**Errors.**'), description.indexOf('**Request errors**'));
  const requestErrors = description.slice(description.indexOf('**Request errors**'));
  return { shared: codesIn(errors.slice(errors.indexOf('Codes are those'))), requestErrors: codesIn(requestErrors) };
}

describe("the contracts' error-code lists and the core's catalog", () => {
  it('the REST table holds every code the REST API reports, each with the status the server answers', () => {
    const table = restErrorTable(openapi.info.description);
    expect(sorted(table.keys())).toEqual(sorted(restCodes));
    for (const [code, statuses] of table) expect(statuses, code).toEqual(statusesOf(code as ErrorCode));
  });

  it("GraphQL's description names every code a field can fail with, and every GraphQL request error", () => {
    const { shared, requestErrors } = graphqlCodeLists(sdl);
    expect(sorted(shared)).toEqual(sorted(graphqlFieldCodes));
    expect(graphqlOnly.filter((code) => !requestErrors.includes(code))).toEqual([]);
    // Nothing there names a code GraphQL never reports (one of REST's or the inventory service's own).
    const graphqlCodes: string[] = [...graphqlFieldCodes, ...graphqlOnly];
    expect(requestErrors.filter((code) => code in errorCatalog && !graphqlCodes.includes(code))).toEqual([]);
  });

  it('the readers find a missing or extra code, and a wrong status', () => {
    const table = restErrorTable(
      '| code | status | meaning |\n|---|---|---|\n| `A_CODE`, `B_CODE` | 409 | x |\n| `C` | 4xx | y |',
    );
    expect([...table]).toEqual([
      ['A_CODE', [409]],
      ['B_CODE', [409]],
    ]);
    const lists = graphqlCodeLists(
      '"""\n**Errors.** Codes are those of the REST API (`X_CODE`).\n**Request errors** `Y_CODE`\n**Limits** `Z_CODE`\n"""',
    );
    expect(lists).toEqual({ shared: ['X_CODE'], requestErrors: ['Y_CODE', 'Z_CODE'] });
  });
});
