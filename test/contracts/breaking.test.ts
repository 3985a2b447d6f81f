import { execFileSync } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  diffProto,
  historyOf,
  type ReleaseHistory,
  type Retirement,
  releaseFromDirectory,
  runGate,
} from '@order-api/contract-gate';
import { signDocument } from '@order-api/contract-registry';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  type Day,
  evidenceKeyPair,
  type UsageExportOptions,
  usageExportContent,
  type Window,
  withEvidenceKey,
} from '../support/evidence.js';

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
    // The wire is compatible; what revision 1 did not state are the input rules (buf.validate) since added.
    const wire = findings.filter((finding) => finding.rule !== 'request-constraint-narrowed');
    expect(wire.map((f) => f.message)).toEqual([]);
    expect(findings.map((f) => f.item)).toContain('ReserveRequest.quantity');
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

  /** A 30-minute window held on 2026-10-20, after the announcement and inside a 40-day export. */
  const HELD: Window = { startsAt: '2026-10-20T10:00:00.000Z', endsAt: '2026-10-20T10:30:00.000Z' };
  const key = evidenceKeyPair();
  interface ExportOptions extends Partial<UsageExportOptions> {
    /** The key that signs it; null: unsigned. */
    signer?: KeyObject | null;
  }
  /** The content of a usage export of `rest.Order.note` ending `to` (today), with the held window. */
  const exportContent = (days: Day[], options: ExportOptions = {}) =>
    usageExportContent(days, { to: today, item: 'rest.Order.note', brownouts: [HELD], ...options });
  /** Writes an export (signed by the deployment's key unless told otherwise) and returns its file. */
  function writeExport(content: object, signer: KeyObject | null = key.privateKey): string {
    const file = path.join(scratch, `evidence-${counter++}.json`);
    writeFileSync(file, JSON.stringify(signer ? signDocument(content, signer) : content));
    return file;
  }
  const evidence = (days: Day[], options: ExportOptions = {}) =>
    writeExport(exportContent(days, options), options.signer === undefined ? key.privateKey : options.signer);
  const quiet = (days: number) => Array.from({ length: days }, () => ({}));
  const entry = (file: string, extra: Partial<Retirement> = {}): Retirement => ({
    contract: 'openapi',
    item,
    registryItem: 'rest.Order.note',
    evidence: file,
    quietDays: 30,
    ...extra,
  });
  /** The history of one release of `base`, dated `released` ('' = unknown), committing the deployment's key. */
  const histories = new Map<string, ReleaseHistory>();
  const historyFor = (base: string, released: string, publicPem: string | null = key.publicPem) => {
    const id = `${base}|${released}|${publicPem}`;
    const history =
      histories.get(id) ??
      historyOf([
        withEvidenceKey(releaseFromDirectory(base, { version: '1.1.0', date: released }), publicPem ?? undefined),
      ]);
    histories.set(id, history);
    return history;
  };
  const gate = async (
    retirements: Retirement[],
    { base = deprecatedBase, on = today, released = '2026-01-05', history = historyFor(base, released) } = {},
  ) => {
    // The variants differ in openapi.yaml only: buf is not run for each of these gates.
    const result = await runGate({
      root,
      baseDir: base,
      headDir: removed,
      retirements,
      today: on,
      history,
      baseRegistry: history.base.registry(),
      protoChanges: [],
    });
    const finding = result.findings.find((f) => f.item === item);
    return { blocked: result.blocking.includes(finding as never), finding };
  };

  it('lets the removal through after the sunset with 30 measured days of zero use, a held brownout and notice', async () => {
    const retirement = entry(evidence(quiet(40)));
    const { blocked, finding } = await gate([retirement]);
    expect(blocked).toBe(false);
    expect(finding?.retiredBy?.verdict).toEqual({
      allowed: true,
      deprecated: '2026-01-01',
      announced: '2026-01-05',
      announcedIn: '1.1.0',
      sunset: '2026-07-01',
      noticeDays: 177,
      quietDays: 40,
      measuredTo: today,
      brownout: { startsAt: HELD.startsAt, endsAt: HELD.endsAt, minutes: 30, hits: 0 },
    });
  });

  it('blocks it without an entry, and before the sunset', async () => {
    expect((await gate([])).blocked).toBe(true);
    const early = await gate([entry(evidence(quiet(40), { to: '2026-06-20' }))], { on: '2026-06-25' });
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
    expect((await gate([entry(evidence(quiet(40), { to: '2026-11-10' }))])).finding?.refused).toMatch(
      /more than 7 days ago/,
    );
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

  it('refuses exports of format 1 and 2, and a signed one whose measured flag contradicts its counts', async () => {
    expect((await gate([entry(evidence(quiet(40), { format: 'order-api.usage-export/1' }))])).finding?.refused).toMatch(
      /is a usage export of format 1, .*: export it again \(order-api\.usage-export\/3\)$/,
    );
    expect(
      (await gate([entry(evidence(quiet(40), { format: 'order-api.usage-export/2', signer: null }))])).finding?.refused,
    ).toMatch(/is a usage export of format 2, unsigned and without brownout windows: export it again/);
    const content = exportContent(quiet(40));
    Object.assign(content.days[30] as object, { flushedInstances: 1 });
    expect((await gate([entry(writeExport(content))])).finding?.refused).toMatch(/contradicts itself on 2026-11-14/);
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

  describe('signed evidence: a hand-written, edited or foreign export proves nothing', () => {
    // The bypasses against the honest path above: each refused with its reason.
    const refusedWith = async (file: string, options: Parameters<typeof gate>[1] = {}) => {
      const { blocked, finding } = await gate([entry(file)], options);
      expect(blocked).toBe(true);
      return finding?.refused;
    };

    it('refuses an unsigned export, however quiet it says the item was', async () => {
      expect(await refusedWith(evidence(quiet(45), { signer: null }))).toMatch(
        /^the evidence .* is refused: it is not signed \(the evidence key of release 1\.1\.0/,
      );
    });

    it('refuses a count altered after signing, and a forged signature', async () => {
      // The honest export shows 4 uses a week ago: overdue. Editing them away breaks the signature.
      const file = evidence([...quiet(30), { uses: 4 }, ...quiet(5)]);
      expect(await refusedWith(file)).toMatch(/^overdue/);
      const altered = JSON.parse(readFileSync(file, 'utf8'));
      altered.days[30].uses = 0;
      altered.callers = [];
      writeFileSync(file, JSON.stringify(altered));
      expect(await refusedWith(file)).toMatch(
        /is refused: its signature does not match its content: it was altered after it was signed/,
      );
      const forged = JSON.parse(readFileSync(evidence(quiet(45)), 'utf8'));
      forged.signature = Buffer.alloc(64, 7).toString('base64');
      expect(await refusedWith(writeExport(forged, null))).toMatch(/its signature does not match its content/);
    });

    it('refuses an export signed by another key, and one the baseline has no key for', async () => {
      // The author's own server (or a key committed in the same change) signed it: not the baseline's key.
      const mine = evidenceKeyPair();
      expect(await refusedWith(evidence(quiet(45), { signer: mine.privateKey }))).toMatch(
        /is refused: it is signed by the key sha256:[0-9a-f]{64}, not by the evidence key sha256:[0-9a-f]{64}/,
      );
      expect(
        await refusedWith(evidence(quiet(45)), { history: historyFor(deprecatedBase, '2026-01-05', null) }),
      ).toMatch(/^the baseline release 1\.1\.0 commits no contracts\/evidence-key\.pem/);
    });

    it('refuses a signed export of another item', async () => {
      expect(await refusedWith(evidence(quiet(45), { item: 'rest.ProductRating.count' }))).toMatch(
        /is about rest\.ProductRating\.count, not rest\.Order\.note$/,
      );
    });
  });

  describe('a brownout before every removal', () => {
    const refusal = async (brownouts: Window[], extra: Partial<Retirement> = {}) =>
      (await gate([entry(evidence(quiet(40), { brownouts }), extra)])).finding?.refused;

    it('refuses a removal whose evidence holds no brownout window', async () => {
      expect(await refusal([])).toBe(
        'no brownout held: the evidence shows no window of at least 15 minutes held after the announcement ' +
          '2026-01-05 (2026-10-15 to 2026-11-23, no window at all); schedule one (POST /v1/brownouts), let it run, ' +
          'and export again with enough days to include it',
      );
    });

    it('refuses a window too short, cancelled before its end, not over by the export, or before the announcement', async () => {
      const at = (time: string, day = '2026-10-20') => `${day}T${time}:00.000Z`;
      expect(await refusal([{ startsAt: at('10:00'), endsAt: at('10:14') }])).toMatch(
        /no window of at least 15 minutes .*: 2026-10-20T10:00:00\.000Z\/2026-10-20T10:14:00\.000Z lasted 14 minutes\)/,
      );
      expect(await refusal([{ ...HELD, cancelledAt: at('10:05') }])).toMatch(
        /was cancelled at 2026-10-20T10:05:00\.000Z/,
      );
      expect(await refusal([{ startsAt: at('23:50', '2026-11-23'), endsAt: at('00:20', '2026-11-24') }])).toMatch(
        /had not ended by the export \(2026-11-23T23:59:59\.999Z\)/,
      );
      expect(await refusal([{ startsAt: at('10:00', '2026-01-04'), endsAt: at('10:30', '2026-01-04') }])).toMatch(
        /2026-01-04T10:00:00\.000Z\/2026-01-04T10:30:00\.000Z started before the announcement 2026-01-05/,
      );
      // A window cancelled only after it ended was held.
      expect(await refusal([{ ...HELD, cancelledAt: at('11:00') }])).toBeUndefined();
    });

    it('takes a shorter window only with a reason', async () => {
      const short = [{ startsAt: '2026-10-20T10:00:00.000Z', endsAt: '2026-10-20T10:05:00.000Z' }];
      expect(await refusal(short, { minBrownoutMinutes: 5 })).toBe(
        'minBrownoutMinutes 5 is below 15: a shorter window needs a brownoutReason',
      );
      expect(
        await refusal(short, { minBrownoutMinutes: 5, brownoutReason: 'internal batch client, owner agreed' }),
      ).toBeUndefined();
    });
  });

  describe('announced long enough: the notice comes from the release history', () => {
    it('refuses a deprecation first released less than 90 days before its sunset', async () => {
      // Typed as deprecated on 2026-01-01 in the contract, but first released on 2026-05-01: 61 days.
      const { blocked, finding } = await gate([entry(evidence(quiet(40)))], { released: '2026-05-01' });
      expect(blocked).toBe(true);
      expect(finding?.refused).toBe(
        'announced too late: the deprecation was first released in 1.1.0 on 2026-05-01, 61 days before its sunset ' +
          '2026-07-01; 90 days of notice are needed',
      );
    });

    it('reads the first release that carried the deprecation, not the baseline', async () => {
      // 1.0.0 (2025-12-01) did not deprecate it; 1.1.0 (2026-05-01) did; 1.2.0 (2026-06-01) is the baseline.
      const releases = [
        withEvidenceKey(releaseFromDirectory(contracts, { version: '1.0.0', date: '2025-12-01' }), key.publicPem),
        withEvidenceKey(releaseFromDirectory(deprecatedBase, { version: '1.1.0', date: '2026-05-01' }), key.publicPem),
        withEvidenceKey(releaseFromDirectory(deprecatedBase, { version: '1.2.0', date: '2026-06-01' }), key.publicPem),
      ];
      const { finding } = await gate([entry(evidence(quiet(40)))], { history: historyOf(releases) });
      expect(finding?.refused).toMatch(/^announced too late: .* first released in 1\.1\.0 on 2026-05-01, 61 days/);
    });

    it('lowers the notice only with a reason', async () => {
      const lowered = { minNoticeDays: 60 };
      expect((await gate([entry(evidence(quiet(40)), lowered)], { released: '2026-05-01' })).finding?.refused).toBe(
        'minNoticeDays 60 is below 90: a shorter notice needs a noticeReason',
      );
      const reasoned = { ...lowered, noticeReason: 'security fix; the two callers were told on 2026-04-20' };
      const { blocked, finding } = await gate([entry(evidence(quiet(40)), reasoned)], { released: '2026-05-01' });
      expect(blocked).toBe(false);
      expect(finding?.retiredBy?.verdict).toMatchObject({ announced: '2026-05-01', noticeDays: 61 });
    });

    it('cannot prove the notice from a baseline directory without release dates', async () => {
      expect((await gate([entry(evidence(quiet(40)))], { released: '' })).finding?.refused).toBe(
        'the notice cannot be proven without release history: the release 1.1.0 that first carried ' +
          'rest.Order.note as deprecated has no known date (a baseline given as a directory); run the gate on the git history',
      );
    });
  });
});

describe('the command', () => {
  const run = (...args: string[]) => {
    try {
      return {
        code: 0,
        output: execFileSync('npx', ['tsx', 'packages/contract-gate/src/cli/breaking.ts', ...args], {
          cwd: root,
          encoding: 'utf8',
        }),
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
      'packages/contract-gate/test/fixtures/canary-base',
      '--head',
      'packages/contract-gate/test/fixtures/canary-head',
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
