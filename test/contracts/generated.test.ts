import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, parse, print, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistedOperationIds } from '../../generated/graphql/persisted-operation-ids.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `generate --check` on a scratch copy of the contracts and generated/. */
async function checkGenerated(copy: string): Promise<{ code: number; output: string }> {
  const env = { ...process.env, PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}` };
  try {
    const { stdout, stderr } = await run('tsx', ['scripts/generate.ts', '--check', '--root', copy], { cwd: root, env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('npm run check:generated', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'order-api-generated-'));
    for (const entry of ['contracts', 'generated', 'buf.yaml', 'buf.gen.yaml']) {
      cpSync(path.join(root, entry), path.join(scratch, entry), { recursive: true });
    }
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes when generated/ matches the contracts, and fails naming each stale file after a contract change', async () => {
    const current = await checkGenerated(scratch);
    expect(current.output).toContain('generated/ is current');
    expect(current.code).toBe(0);

    const openapi = path.join(scratch, 'contracts/openapi.yaml');
    writeFileSync(
      openapi,
      readFileSync(openapi, 'utf8').replace(
        "        note: { type: [string, 'null'], description: A note from the customer; `null` when absent. }",
        "        memo: { type: [string, 'null'], description: A note from the customer; `null` when absent. }",
      ),
    );
    const proto = path.join(scratch, 'contracts/inventory/v1/inventory.proto');
    writeFileSync(proto, readFileSync(proto, 'utf8').replace('int32 on_hand = 2;', 'int64 on_hand = 2;'));

    const stale = await checkGenerated(scratch);
    expect(stale.code).not.toBe(0);
    expect(stale.output).toContain('differs: generated/openapi/schema.d.ts');
    expect(stale.output).toContain('differs: generated/contracts/openapi.json');
    expect(stale.output).toContain('differs: generated/proto/inventory/v1/inventory_pb.ts');
  }, 60_000);
});

describe('the persisted-operation manifest', () => {
  const manifest: Record<string, string> = JSON.parse(
    readFileSync(path.join(root, 'generated/graphql/persisted-operations.json'), 'utf8'),
  );
  const schema = buildSchema(readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8'));
  const files = readdirSync(path.join(root, 'contracts/operations')).filter((file) => file.endsWith('.graphql'));

  it('holds every committed operation, keyed by the SHA-256 of its printed document, as written and as Apollo sends it', () => {
    // Each operation twice: as written, and with __typename added (what Apollo Client hashes).
    expect(Object.keys(manifest)).toHaveLength(files.length * 2);
    for (const document of Object.values(manifest).filter((text) => text.includes('__typename'))) {
      expect(manifest[createHash('sha256').update(document).digest('hex')]).toBe(document);
    }
    for (const file of files) {
      const printed = print(parse(readFileSync(path.join(root, 'contracts/operations', file), 'utf8')));
      const hash = createHash('sha256').update(printed).digest('hex');
      expect(manifest[hash], file).toBe(printed);
      expect(persistedOperationIds[path.basename(file, '.graphql') as keyof typeof persistedOperationIds]).toBe(hash);
    }
  });

  it('holds only documents that are valid against the schema', () => {
    for (const [hash, document] of Object.entries(manifest)) {
      expect(validate(schema, parse(document)), hash).toEqual([]);
    }
  });

  it('includes the spec queries verbatim in shape', () => {
    const documents = Object.values(manifest).map((document) => document.replace(/\s+/g, ' '));
    expect(documents).toContainEqual(
      expect.stringContaining(
        'order(id: $id) { id amount user { name } product { name imageUrl rating } shipment { status } }',
      ),
    );
    expect(documents).toContainEqual(expect.stringContaining('orders(first: $first) { id user { name } }'));
  });
});
