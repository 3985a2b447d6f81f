import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { deprecationFixture } from '../support/deprecation-fixture.js';

const root = path.resolve(import.meta.dirname, '../..');
let fixture: ReturnType<typeof deprecationFixture> | undefined;
afterEach(() => fixture?.remove());

/** Runs `npm run contracts:lint` (its deprecation check) on a fixture checkout. */
async function lint(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'npx',
      ['tsx', 'packages/contract-gate/src/cli/lint.ts', '--root', dir, '--only', 'deprecations'],
      { cwd: root },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function edit(file: string, change: (text: string) => string) {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
}

describe('contracts:lint on deprecations', () => {
  it('passes deprecations dated in all three contracts', async () => {
    fixture = deprecationFixture();
    expect(await lint(fixture.root)).toMatchObject({ code: 0 });
  });

  it('fails on a deprecated OpenAPI item without a sunset, and on a GraphQL date that is not a real date', async () => {
    fixture = deprecationFixture();
    edit(path.join(fixture.root, 'contracts/openapi.yaml'), (text) =>
      text.replace(/\n\s*x-sunset: "?2027-06-30"?\n/, '\n'),
    );
    edit(path.join(fixture.root, 'contracts/schema.graphql'), (text) =>
      text.replace('Sunset: 2027-06-30', 'Sunset: 2027-02-30'),
    );
    const { code, output } = await lint(fixture.root);
    expect(code).toBe(1);
    expect(output).toMatch(/openapi\.yaml GET \/v1\/\S+ \S*\s?\S*: deprecated without a sunset date/);
    expect(output).toContain('schema.graphql Order.note: sunset "2027-02-30" is not a real date');
  });

  it('fails on a deprecated proto field without a date, and on a watched id that names nothing', async () => {
    fixture = deprecationFixture();
    edit(path.join(fixture.root, 'contracts/inventory/v1/inventory.proto'), (text) =>
      text.replace('Sunset: 2027-06-30.', ''),
    );
    edit(path.join(fixture.root, 'contracts/watched.yaml'), (text) =>
      text.replace('graphql.Order.amount', 'graphql.Order.amont'),
    );
    const { code, output } = await lint(fixture.root);
    expect(code).toBe(1);
    expect(output).toContain('inventory.v1.AdjustStockRequest.reason: deprecated without a sunset date');
    expect(output).toContain('watched.yaml #2: "graphql.Order.amont" names no item');
  });
});
