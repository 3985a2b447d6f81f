import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Retirement, runGate } from '../../scripts/breaking/gate.js';
import { diffProto } from '../../scripts/breaking/proto-diff.js';

const root = path.resolve(import.meta.dirname, '../..');
const contracts = path.join(root, 'contracts');
const scratch = mkdtempSync(path.join(tmpdir(), 'breaking-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Json = Record<string, any>;
interface Edit {
  openapi?: (document: Json) => void;
  graphql?: (sdl: string) => string;
  proto?: (text: string) => string;
}

let counter = 0;
/** A copy of the real contracts with one edit applied: the "changed" side of a base/changed pair. */
function variant(edit: Edit): string {
  const dir = path.join(scratch, `v${counter++}`);
  cpSync(path.join(contracts, 'inventory'), path.join(dir, 'inventory'), { recursive: true });
  const document = parse(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8'));
  edit.openapi?.(document);
  writeFileSync(path.join(dir, 'openapi.yaml'), stringify(document));
  const sdl = readFileSync(path.join(contracts, 'schema.graphql'), 'utf8');
  writeFileSync(path.join(dir, 'schema.graphql'), edit.graphql ? edit.graphql(sdl) : sdl);
  const protoFile = path.join(dir, 'inventory/v1/inventory.proto');
  if (edit.proto) writeFileSync(protoFile, edit.proto(readFileSync(protoFile, 'utf8')));
  writeFileSync(
    path.join(dir, 'CHANGELOG.md'),
    '# Changelog\n\n## [Unreleased]\n\n### Removed\n\n- REST, GraphQL, gRPC: `Order.note`.\n',
  );
  return dir;
}

async function verdict(edit: Edit, retirements: Retirement[] = [], baseDir = contracts) {
  const result = await runGate({ root, baseDir, headDir: variant(edit), retirements, today: '2026-11-23' });
  return { ...result, breaking: result.blocking.length > 0, messages: result.blocking.map((f) => f.message) };
}

const order = (document: Json) => document.components.schemas.Order;

describe('the proto rules (buf breaking with the project’s rule set)', () => {
  it('passes the spec’s own retirement of field 2 (revision 1 → current)', () => {
    const findings = diffProto(root, path.join(root, 'test/fixtures/proto/revision-1'), contracts);
    expect(findings.map((f) => f.message)).toEqual([]);
  });

  it('refuses to run with a rule set that does not check JSON names (Connect clients speak JSON)', () => {
    const fakeRoot = path.join(scratch, 'weak-rules');
    cpSync(path.join(root, 'buf.yaml'), path.join(fakeRoot, 'buf.yaml'));
    const config = parse(readFileSync(path.join(fakeRoot, 'buf.yaml'), 'utf8'));
    config.breaking.except.push('FIELD_SAME_JSON_NAME');
    writeFileSync(path.join(fakeRoot, 'buf.yaml'), stringify(config));
    expect(() => diffProto(fakeRoot, contracts, contracts)).toThrow(/FIELD_SAME_JSON_NAME/);
  });
});

describe('removal through a recorded retirement only', () => {
  const removeNote = { openapi: (d: Json) => delete order(d).properties.note };
  const item = 'GET /v1/orders/{orderId} 200 response.note';

  it('lets a removal through when its retirement is recorded and the sunset has passed', async () => {
    const retirement: Retirement = {
      contract: 'openapi',
      item,
      deprecated: '2026-01-01',
      sunset: '2026-07-01',
      zeroUsageSince: '2026-05-01',
    };
    const result = await runGate({
      root,
      baseDir: contracts,
      headDir: variant({
        openapi: (d) => {
          // Remove `note` only from the single-order response, so one retirement entry covers it.
          const get = d.paths['/v1/orders/{orderId}'].get;
          const schema = structuredClone(order(d));
          delete schema.properties.note;
          schema.required = schema.required.filter((name: string) => name !== 'note');
          get.responses['200'].content['application/json'].schema = schema;
        },
      }),
      retirements: [retirement],
      today: '2026-11-23',
    });
    expect(result.blocking.map((f) => f.message)).toEqual([]);
    expect(result.findings.some((f) => f.retiredBy === retirement)).toBe(true);
  });

  it('still blocks it before the sunset, or without an entry', async () => {
    const early: Retirement = {
      contract: 'openapi',
      item,
      deprecated: '2026-10-01',
      sunset: '2027-01-01',
      zeroUsageSince: '2026-11-01',
    };
    expect((await verdict(removeNote, [early])).breaking).toBe(true);
    expect((await verdict(removeNote)).breaking).toBe(true);
  });
});

describe('the command', () => {
  const run = (...args: string[]) => {
    try {
      return {
        code: 0,
        output: execFileSync('npx', ['tsx', 'scripts/contracts-breaking.ts', ...args], { cwd: root, encoding: 'utf8' }),
      };
    } catch (error) {
      const failure = error as { status: number; stdout: string; stderr: string };
      return { code: failure.status, output: failure.stdout + failure.stderr };
    }
  };

  it('passes the working contracts against the released baseline', () => {
    expect(run()).toMatchObject({ code: 0 });
  });

  it('fails the canary in every contract, so a broken rule set cannot pass silently', () => {
    const { code, output } = run(
      '--base',
      'test/fixtures/breaking/canary-base',
      '--head',
      'test/fixtures/breaking/canary-head',
    );
    expect(code).toBe(1);
    for (const contract of ['openapi', 'graphql', 'proto'])
      expect(output).toMatch(new RegExp(`${contract}: [1-9]\\d* breaking`));
  });

  it('tells a failure to load apart from a breaking change', () => {
    const { code, output } = run('--base', path.join(scratch, 'does-not-exist'));
    expect(code).toBe(2);
    expect(output).toContain('LOAD FAILURE');
  });
});
