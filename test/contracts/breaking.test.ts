import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Retirement, runGate } from '../../scripts/breaking/gate.js';
import { diffProto } from '../../scripts/breaking/proto-diff.js';
import { type ExportDay, incompleteReasons, USAGE_EXPORT_FORMAT } from '../../src/core/usage-export.js';

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

describe('removal through a recorded retirement with evidence only', () => {
  const item = 'GET /v1/orders/{orderId} 200 response.note';
  const today = '2026-11-23';
  // The released side deprecated `Order.note` (sunset 2026-07-01); the changed side removes it from the
  // single-order response, so one retirement entry covers the one finding.
  const dates = { deprecated: true, 'x-deprecated-on': '2026-01-01', 'x-sunset': '2026-07-01' };
  // `ProductRating.count` is deprecated too, so that a retirement can name a real but other item.
  const deprecatedBase = variant({
    openapi: (d) => {
      Object.assign(order(d).properties.note, dates);
      Object.assign(d.components.schemas.ProductRating.properties.count, dates);
    },
  });
  const removed = variant({
    openapi: (d) => {
      const get = d.paths['/v1/orders/{orderId}'].get;
      const schema = structuredClone(order(d));
      delete schema.properties.note;
      schema.required = schema.required.filter((name: string) => name !== 'note');
      get.responses['200'].content['application/json'].schema = schema;
    },
  });

  /** One day of an export: two instances, both flushed, nothing dropped, no use, unless given. */
  type Day = Partial<Pick<ExportDay, 'instances' | 'flushedInstances' | 'droppedUses' | 'uses' | 'brownoutHits'>>;
  /** A usage export of `rest.Order.note` ending `to`, one entry per day, as `npm run usage:export` writes. */
  function evidence(days: Day[], to = today, format = USAGE_EXPORT_FORMAT as string): string {
    const end = Date.parse(`${to}T00:00:00Z`);
    const list = days.map((day, index) => {
      const instances = day.instances ?? 2;
      const counts = {
        instances,
        flushedInstances: day.flushedInstances ?? instances,
        droppedUses: day.droppedUses ?? 0,
      };
      const incomplete = incompleteReasons(counts);
      return {
        day: new Date(end - (days.length - 1 - index) * 86_400_000).toISOString().slice(0, 10),
        ...counts,
        measured: incomplete.length === 0,
        incomplete,
        uses: day.uses ?? 0,
        replacementUses: 0,
        brownoutHits: day.brownoutHits ?? 0,
      };
    });
    const used = list.some((day) => day.uses + day.brownoutHits > 0);
    const file = path.join(scratch, `evidence-${counter++}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        format,
        item: 'rest.Order.note',
        from: list[0]?.day,
        to,
        days: list,
        callers: used
          ? [
              {
                apiKeyId: 7,
                owner: 'Ann Web',
                email: 'ann@example.com',
                clients: ['shop-web/3.2.1'],
                uses: 4,
                brownoutHits: 1,
                lastSeen: `${to}T08:00:00.000Z`,
              },
            ]
          : [],
      }),
    );
    return file;
  }
  const quiet = (days: number) => Array.from({ length: days }, () => ({}));
  const entry = (file: string, extra: Partial<Retirement> = {}): Retirement => ({
    contract: 'openapi',
    item,
    registryItem: 'rest.Order.note',
    evidence: file,
    quietDays: 30,
    ...extra,
  });
  const gate = async (retirements: Retirement[], { base = deprecatedBase, on = today } = {}) => {
    const result = await runGate({ root, baseDir: base, headDir: removed, retirements, today: on });
    const finding = result.findings.find((f) => f.item === item);
    return { blocked: result.blocking.includes(finding as never), finding };
  };

  it('lets the removal through after the sunset with 30 measured days of zero use', async () => {
    const retirement = entry(evidence(quiet(40)));
    const { blocked, finding } = await gate([retirement]);
    expect(blocked).toBe(false);
    expect(finding?.retiredBy?.verdict).toEqual({
      allowed: true,
      deprecated: '2026-01-01',
      sunset: '2026-07-01',
      quietDays: 40,
      measuredTo: today,
    });
  });

  it('blocks it without an entry, and before the sunset', async () => {
    expect((await gate([])).blocked).toBe(true);
    const early = await gate([entry(evidence(quiet(40), '2026-06-20'))], { on: '2026-06-25' });
    expect(early).toMatchObject({ blocked: true, finding: { refused: 'its sunset 2026-07-01 has not come yet' } });
  });

  it('refuses an item the released contracts never deprecated: a hand-written entry is not evidence', async () => {
    const { blocked, finding } = await gate([entry(evidence(quiet(40)))], { base: contracts });
    expect(blocked).toBe(true);
    expect(finding?.refused).toMatch(
      /rest\.Order\.note was not deprecated with a sunset date in the released contracts/,
    );
  });

  it('refuses when a day was not measured, when the evidence is stale, or names another item', async () => {
    const gap = [...quiet(20), { instances: 0 }, ...quiet(15)];
    expect((await gate([entry(evidence(gap))])).finding?.refused).toMatch(
      /only 15 quiet days .*nothing was measured on/,
    );
    expect((await gate([entry(evidence(quiet(40), '2026-11-10'))])).finding?.refused).toMatch(/more than 7 days ago/);
    expect(
      (await gate([entry(evidence(quiet(40)), { registryItem: 'rest.ProductRating.count' })])).finding?.refused,
    ).toBe(`rest.ProductRating.count is not the removed item ${item}`);
    expect((await gate([entry(evidence(quiet(40)), { registryItem: 'rest.listOrders' })])).finding?.refused).toMatch(
      /^rest\.listOrders was not deprecated with a sunset date/,
    );
  });

  it('counts neither a day with dropped uses nor one an instance served without flushing as quiet', async () => {
    const dropped = [...quiet(20), { droppedUses: 3 }, ...quiet(15)];
    expect((await gate([entry(evidence(dropped))])).finding?.refused).toMatch(
      /only 15 quiet days .*\(2026-11-08 was not measured completely: 3 uses were dropped \(buffer full\)\)/,
    );
    const unflushed = [...quiet(20), { instances: 3, flushedInstances: 2 }, ...quiet(15)];
    expect((await gate([entry(evidence(unflushed))])).finding?.refused).toMatch(
      /only 15 quiet days .*\(2026-11-08 was not measured completely: 1 of 3 instances that served it never flushed\)/,
    );
  });

  it('refuses an export of format 1, and one whose measured flag contradicts its counts', async () => {
    expect((await gate([entry(evidence(quiet(40), today, 'order-api.usage-export/1'))])).finding?.refused).toMatch(
      /is a usage export of format 1, .*: export it again \(order-api\.usage-export\/2\)$/,
    );
    const file = evidence(quiet(40));
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    Object.assign(edited.days[30], { flushedInstances: 1 });
    writeFileSync(file, JSON.stringify(edited));
    expect((await gate([entry(file)])).finding?.refused).toMatch(/contradicts itself on 2026-11-14/);
  });

  it('calls an item still used after its sunset overdue and names the callers', async () => {
    const { blocked, finding } = await gate([entry(evidence([...quiet(30), { uses: 4 }, ...quiet(5)]))]);
    expect(blocked).toBe(true);
    expect(finding?.refused).toMatch(
      /^overdue: still used after its sunset 2026-07-01, by key 7 \(Ann Web, ann@example\.com\) \[shop-web\/3\.2\.1\] 4 uses/,
    );
  });

  it('counts brownout hits as use', async () => {
    const { finding } = await gate([entry(evidence([...quiet(30), { brownoutHits: 1 }, ...quiet(5)]))]);
    expect(finding?.refused).toMatch(/^overdue/);
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

  it('passes the working contracts against the last release in git history', () => {
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
