import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

// Spectral's OWASP ruleset (contracts/.spectral-owasp.yaml, run by `npm run
// contracts:lint`) reports no unbounded request input in the contract, and does report one when a bound
// is taken away, so a lint that loads no rules cannot pass silently.
const root = path.resolve(import.meta.dirname, '../..');
const ruleset = path.join(root, 'contracts/.spectral-owasp.yaml');
const spectral = path.join(root, 'node_modules/.bin/spectral');
const run = promisify(execFile);
const scratch = mkdtempSync(path.join(tmpdir(), 'owasp-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Finding {
  code: string;
  path: string[];
}

async function lint(file: string): Promise<Finding[]> {
  const { stdout } = await run(spectral, ['lint', '-r', ruleset, file, '-f', 'json', '-q', '--fail-severity', 'hint'], {
    cwd: root,
  }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  return JSON.parse(stdout) as Finding[];
}

describe('the OWASP ruleset', () => {
  it('finds nothing in contracts/openapi.yaml', async () => {
    expect(await lint(path.join(root, 'contracts/openapi.yaml'))).toEqual([]);
  });

  it('reports a request string, integer and array left without a bound', async () => {
    const document = parse(readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8'));
    delete document.components.schemas.OrderCreate.properties.note.maxLength;
    delete document.components.parameters.Size.schema.maximum;
    delete document.components.schemas.OrderCreate.properties.items.maxItems;
    const file = path.join(scratch, 'openapi.yaml');
    writeFileSync(file, stringify(document));
    const found = (await lint(file)).map((finding) => `${finding.code} ${finding.path.join('.')}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'order-api:request-string-limit components.schemas.OrderCreate.properties.note',
        'order-api:request-integer-limit components.parameters.Size.schema',
        'order-api:request-array-limit components.schemas.OrderCreate.properties.items',
      ]),
    );
  });
});
