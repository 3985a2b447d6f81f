/**
 * The gate's baseline comes from git history, every changed meaning is named, and a removal needs signed
 * evidence, a held brownout and enough notice. Each bypass is committed in one small temporary
 * repository, as a pull request would commit it: small contracts, a legacy first release (its snapshot in
 * contracts/released/, as 1.0.0 was), and the gate's own scripts run against it (`--root`). The gate runs
 * in-process; the command runs for its exit codes.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gateHistory, HistoryError, makeRelease, ReleaseRefused, readReleaseHistory } from '@order-api/contract-gate';
import { signDocument } from '@order-api/contract-registry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { evidenceKeyPair, type UsageExportOptions, usageExportContent } from '../support/evidence.js';

const project = path.resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'release-history-'));
const repo = path.join(scratch, 'repo');
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' });

const OPENAPI = `openapi: 3.1.0
info: { title: Orders, version: 1.0.0 }
paths:
  /v1/orders/{orderId}:
    get:
      operationId: getOrder
      parameters:
        - { name: orderId, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: The order.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Order" }
components:
  schemas:
    Order:
      type: object
      required: [id, amount, note]
      properties:
        id: { type: integer, description: The order's id. }
        amount: { type: number, description: "The order's total, VAT included." }
        note: { type: [string, "null"], description: The buyer's note. }
`;
const GRAPHQL = `type Query {
  order(id: ID!): Order
}

type Order {
  id: ID!
  "The order's total, VAT included."
  amount: Float!
  "The buyer's note."
  note: String
}
`;
const PROTO = `syntax = "proto3";

package inventory.v1;

// Stock is the stock of one SKU.
message Stock {
  // The stock-keeping unit.
  string sku = 1;
  // How many units are on hand.
  int32 on_hand = 2;
}
`;
const CHANGELOG = (
  unreleased: string,
  releases = '## [1.0.0] - 2026-11-01\n\n### Added\n\n- REST, GraphQL, gRPC: first release.\n',
) => `# Changelog\n\n## [Unreleased]\n\n${unreleased}${unreleased ? '\n' : ''}${releases}`;

const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), text);
};
const edit = (file: string, from: string, to: string) => {
  const text = read(file);
  if (!text.includes(from)) throw new Error(`${file} has no "${from}"`);
  write(file, text.replace(from, to));
};
const commit = (message: string) => {
  git('add', '-A');
  git('commit', '-qm', message);
};
const removeNote = (file: string) => {
  edit(file, 'required: [id, amount, note]', 'required: [id, amount]');
  edit(file, `        note: { type: [string, "null"], description: The buyer's note. }\n`, '');
};

/** The blocking findings of every comparison, as `rule item` (the releases' own checks first). */
async function blocking(): Promise<string[]> {
  const { checks } = await gateHistory({ root: repo, today: '2026-11-26' });
  return checks.flatMap((check) => check.result.blocking.map((finding) => `${finding.rule} ${finding.item}`));
}

/** The command, against a checkout: its exit code and output. */
function command(script: string, ...args: string[]) {
  try {
    const output = execFileSync('npx', ['tsx', path.join(project, 'packages/contract-gate/src/cli', script), ...args], {
      cwd: project,
      env,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { code: 0, output };
  } catch (error) {
    const failure = error as { status: number; stdout: string; stderr: string };
    return { code: failure.status, output: failure.stdout + failure.stderr };
  }
}

beforeAll(() => {
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  cpSync(path.join(project, 'buf.yaml'), path.join(repo, 'buf.yaml'));
  write('contracts/openapi.yaml', OPENAPI);
  write('contracts/schema.graphql', GRAPHQL);
  write('contracts/inventory/v1/inventory.proto', PROTO);
  write('contracts/CHANGELOG.md', CHANGELOG('### Added\n\n- REST, GraphQL, gRPC: first release.\n', ''));
  commit('Contracts');
  // The legacy release, as 1.0.0 was made: the stamp, and a snapshot in contracts/released/ beside
  // contracts that had already moved on (`Order.createdAt`, unreleased).
  cpSync(path.join(repo, 'contracts'), path.join(scratch, 'released'), { recursive: true });
  for (const file of ['openapi.yaml', 'schema.graphql', 'inventory'])
    cpSync(path.join(scratch, 'released', file), path.join(repo, 'contracts/released', file), { recursive: true });
  edit(
    'contracts/openapi.yaml',
    '        id: { type: integer',
    '        createdAt: { type: string, format: date-time }\n        id: { type: integer',
  );
  write('contracts/CHANGELOG.md', CHANGELOG('### Added\n\n- REST: `Order.createdAt`, when the order was placed.\n'));
  commit('Release 1.0.0 (the legacy form: contracts/released/)');
});

beforeEach(() => {
  git('checkout', '-qf', '-B', 'change', 'main');
  git('clean', '-qfdx');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the baseline is the last release in git history', () => {
  it('reads the legacy release from contracts/released/ as committed at its commit', async () => {
    const history = readReleaseHistory({ root: repo });
    try {
      expect(history.releases.map((release) => [release.version, release.date, release.source])).toEqual([
        ['1.0.0', '2026-11-01', 'contracts/released'],
      ]);
      expect(history.base.commit).toBe(git('rev-parse', 'main').trim());
    } finally {
      history.dispose();
    }
    const { checks } = await gateHistory({ root: repo, today: '2026-11-26' });
    expect(checks.map((check) => check.result.blocking)).toEqual([[]]);
    // `Order.createdAt` was not in the released snapshot: the gate sees it as this change's addition.
    expect(checks[0]?.result.findings.map((finding) => finding.item)).toContain('Order.createdAt');
  });

  it('refuses a removal made in the contracts and in the old released folder alike [baseline edit]', async () => {
    removeNote('contracts/openapi.yaml');
    removeNote('contracts/released/openapi.yaml');
    edit('contracts/CHANGELOG.md', '### Added\n', '### Removed\n\n- REST: `Order.note`.\n\n### Added\n');
    commit('Remove Order.note, baseline too');
    expect(await blocking()).toContain('response-member-removed Order.note');
    const { code, output } = command('breaking.ts', '--root', repo);
    expect(code).toBe(1);
    expect(output).toMatch(/BREAKING {2}\[response-member-removed\] .*Order\.note/);
  });

  it('checks a hand-stamped release against the release before it, and keeps checking it after [stamp]', async () => {
    removeNote('contracts/openapi.yaml');
    write(
      'contracts/CHANGELOG.md',
      CHANGELOG(
        '',
        '## [1.1.0] - 2026-11-25\n\n### Removed\n\n- REST: `Order.note`.\n\n### Added\n\n- REST: `Order.createdAt`.\n\n' +
          '## [1.0.0] - 2026-11-01\n\n### Added\n\n- REST, GraphQL, gRPC: first release.\n',
      ),
    );
    commit('Release 1.1.0 by hand');
    expect(await blocking()).toEqual(['response-member-removed Order.note']);
    write('contracts/CHANGELOG.md', `${read('contracts/CHANGELOG.md')}\n`);
    commit('Something else on top');
    expect(await blocking()).toEqual(['response-member-removed Order.note']);
  });

  it('does not take a moved 1.0.0 heading for a release [stamp]', async () => {
    removeNote('contracts/openapi.yaml');
    write(
      'contracts/CHANGELOG.md',
      '# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2026-11-01\n\n### Removed\n\n- REST: `Order.note`.\n\n' +
        '### Added\n\n- REST, GraphQL, gRPC: first release; `Order.createdAt`.\n',
    );
    commit('Move the 1.0.0 stamp above the removal');
    expect(await blocking()).toEqual(
      expect.arrayContaining(['response-member-removed Order.note', 'changelog-entry-missing contracts/CHANGELOG.md']),
    );
  });

  it('makes no release of a breaking change, nor of uncommitted contracts', async () => {
    removeNote('contracts/openapi.yaml');
    await expect(makeRelease({ root: repo, version: '1.1.0', date: '2026-11-25' })).rejects.toThrow(
      /contracts\/ has uncommitted changes/,
    );
    commit('Remove Order.note');
    await expect(makeRelease({ root: repo, version: '1.1.0', date: '2026-11-25' })).rejects.toThrow(ReleaseRefused);
    await expect(makeRelease({ root: repo, version: '1.1.0', date: '2026-11-25' })).rejects.toThrow(
      /\[response-member-removed\] Order\.note/,
    );
  });

  it('passes the honest path: a named addition, released with contracts:release, then the new baseline holds', async () => {
    edit(
      'contracts/openapi.yaml',
      'info: { title: Orders, version: 1.0.0 }',
      'info: { title: Orders, version: 1.1.0 }',
    );
    edit(
      'contracts/schema.graphql',
      '  "The buyer\'s note."',
      '  "Whether the order is gift-wrapped."\n  giftWrap: Boolean\n  "The buyer\'s note."',
    );
    edit(
      'contracts/CHANGELOG.md',
      '- REST:',
      '- GraphQL: `Order.giftWrap` tells whether the order is gift-wrapped.\n- REST:',
    );
    commit('Order.giftWrap');
    expect(await blocking()).toEqual([]);
    const released = await makeRelease({ root: repo, date: '2026-11-25' });
    expect(released).toEqual({ version: '1.1.0', commit: git('rev-parse', 'HEAD').trim() });
    expect(git('log', '-1', '--format=%s').trim()).toBe('Contracts 1.1.0');
    const { releases, checks } = await gateHistory({ root: repo, today: '2026-11-26' });
    expect(releases.map((release) => [release.version, release.source])).toEqual([
      ['1.0.0', 'contracts/released'],
      ['1.1.0', 'contracts'],
    ]);
    expect(checks.map((check) => check.result.blocking)).toEqual([[], []]);
    // From now on `Order.giftWrap` is released: removing it is a breaking change against 1.1.0.
    edit('contracts/schema.graphql', '  "Whether the order is gift-wrapped."\n  giftWrap: Boolean\n', '');
    edit(
      'contracts/CHANGELOG.md',
      '## [Unreleased]\n',
      '## [Unreleased]\n\n### Removed\n\n- GraphQL: `Order.giftWrap`.\n',
    );
    commit('Remove Order.giftWrap');
    expect(await blocking()).toContain('FIELD_REMOVED Order.giftWrap');
  });

  it('exits 2 naming what to fetch on a shallow clone, and without a release', () => {
    const shallow = path.join(scratch, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo}`, shallow], { env });
    const { code, output } = command('breaking.ts', '--root', shallow);
    expect(code).toBe(2);
    expect(output).toContain('git fetch --unshallow');
    git('checkout', '-q', '--orphan', 'unreleased');
    write('contracts/CHANGELOG.md', CHANGELOG('', ''));
    commit('No release yet');
    expect(() => readReleaseHistory({ root: repo })).toThrow(HistoryError);
    expect(() => readReleaseHistory({ root: repo })).toThrow(/no release in the first-parent history of HEAD/);
  });
});

describe('every changed meaning is named', () => {
  const rewrite = () => {
    edit('contracts/openapi.yaml', 'VAT included', 'VAT excluded');
    edit('contracts/schema.graphql', 'VAT included', 'VAT excluded');
    edit(
      'contracts/inventory/v1/inventory.proto',
      '// How many units are on hand.',
      '// How many units are on hand, held ones included.',
    );
    edit(
      'contracts/openapi.yaml',
      '        id: { type: integer',
      '        giftWrap: { type: boolean }\n        id: { type: integer',
    );
  };

  it('refuses a rewritten description in each contract under a [docs] bullet naming another item', async () => {
    rewrite();
    edit(
      'contracts/CHANGELOG.md',
      '### Added\n',
      '### Changed\n\n- REST, GraphQL, gRPC [docs]: clearer description of `Order.note`.\n\n### Added\n\n- REST: gift wrapping.\n',
    );
    commit('Reword the total');
    expect((await blocking()).sort()).toEqual([
      'addition-unnamed Order.giftWrap',
      'description-changed-unnamed Order.amount',
      'description-changed-unnamed Order.amount',
      'description-changed-unnamed Stock.on_hand',
    ]);
  });

  it('passes once the bullets name each changed and added item', async () => {
    rewrite();
    edit(
      'contracts/CHANGELOG.md',
      '### Added\n',
      '### Changed\n\n- REST, GraphQL [docs]: `Order.amount` is the total without VAT.\n' +
        '- gRPC [docs]: `Stock.on_hand` counts held units too.\n\n### Added\n\n- REST: `giftWrap` on `Order`.\n',
    );
    commit('Reword the total, named');
    expect(await blocking()).toEqual([]);
  });
});

describe('a retirement, committed as a pull request would commit it', () => {
  // The deployment's evidence key; its public half is committed in the release that deprecates.
  const deployment = evidenceKeyPair();
  const TODAY = '2027-03-10';
  // 130 quiet, measured days up to 2027-03-08: back to 2026-10-30, so the window of 2026-12-01 is inside.
  const EXPORT = { to: '2027-03-08', item: 'rest.Order.note' };
  const QUIET = Array.from({ length: 130 }, () => ({}));
  const HELD = { startsAt: '2026-12-01T10:00:00.000Z', endsAt: '2026-12-01T10:30:00.000Z' };

  /** Releases 1.1.0 on `date`: `Order.note` deprecated with `sunset`, and the deployment's key committed. */
  const NOTE = `        note: { type: [string, "null"], description: The buyer's note. }\n`;
  const deprecatedNote = (date: string, sunset: string) =>
    `        note:\n          type: [string, "null"]\n          description: The buyer's note.\n` +
    `          deprecated: true\n          x-deprecated-on: "${date}"\n          x-sunset: "${sunset}"\n`;
  let deprecation = { date: '', sunset: '' };

  async function deprecationRelease(date: string, sunset: string) {
    deprecation = { date, sunset };
    edit(
      'contracts/openapi.yaml',
      'info: { title: Orders, version: 1.0.0 }',
      'info: { title: Orders, version: 1.1.0 }',
    );
    edit('contracts/openapi.yaml', NOTE, deprecatedNote(date, sunset));
    write('contracts/evidence-key.pem', deployment.publicPem);
    edit(
      'contracts/CHANGELOG.md',
      '### Added\n',
      `### Deprecated\n\n- REST: \`Order.note\`, sunset ${sunset}.\n\n### Added\n`,
    );
    commit('Deprecate Order.note');
    await makeRelease({ root: repo, date });
  }

  /** The removal of `Order.note` with its retirement entry and the export as given (a signed one by default). */
  function removal(exported: object, { entry = '' } = {}) {
    edit('contracts/openapi.yaml', 'required: [id, amount, note]', 'required: [id, amount]');
    edit('contracts/openapi.yaml', deprecatedNote(deprecation.date, deprecation.sunset), '');
    write('contracts/evidence/rest.Order.note.json', JSON.stringify(exported));
    write(
      'contracts/retirements.yaml',
      'retirements:\n  - contract: openapi\n    item: Order.note\n    registryItem: rest.Order.note\n' +
        `    evidence: contracts/evidence/rest.Order.note.json\n${entry}`,
    );
    edit('contracts/CHANGELOG.md', '## [Unreleased]\n', '## [Unreleased]\n\n### Removed\n\n- REST: `Order.note`.\n');
    commit('Remove Order.note');
  }
  const signed = (options: Partial<UsageExportOptions> = {}, signer = deployment.privateKey) =>
    signDocument(usageExportContent(QUIET, { ...EXPORT, brownouts: [HELD], ...options }), signer);

  /** Why the gate refused the removal of `Order.note` ('' when it let it through). */
  async function refusal(): Promise<string> {
    const { checks } = await gateHistory({ root: repo, today: TODAY });
    const findings = checks.flatMap((check) => check.result.findings);
    const removed = findings.find((finding) => finding.item === 'Order.note' && finding.breaking);
    expect(removed, 'the removal is found').toBeDefined();
    const others = checks.flatMap((check) => check.result.blocking).filter((finding) => finding !== removed);
    expect(others.map((finding) => `${finding.rule} ${finding.item}`)).toEqual([]);
    return removed?.retiredBy ? '' : (removed?.refused ?? 'no retirement');
  }

  it('lets the honest retirement through: signed evidence, a held brownout, 105 days of notice', async () => {
    await deprecationRelease('2026-11-02', '2027-02-15');
    removal(signed());
    expect(await refusal()).toBe('');
    const { code, output } = command('breaking.ts', '--root', repo, '--today', TODAY);
    expect(output).toMatch(/RETIRED/);
    expect(code).toBe(0);
  });

  it('refuses a forged export: signed by another key than the one committed at the baseline release', async () => {
    await deprecationRelease('2026-11-02', '2027-02-15');
    removal(signed({}, evidenceKeyPair().privateKey));
    expect(await refusal()).toMatch(/signed by the key sha256:\w+, not by the evidence key/);
    const { code, output } = command('breaking.ts', '--root', repo, '--today', TODAY);
    expect(code).toBe(1);
    expect(output).toMatch(/retirement refused: .*key/i);
  });

  it('refuses a forged export whose key the same change commits', async () => {
    await deprecationRelease('2026-11-02', '2027-02-15');
    const own = evidenceKeyPair();
    write('contracts/evidence-key.pem', own.publicPem);
    removal(signed({}, own.privateKey));
    expect(await refusal()).toMatch(/signed by the key sha256:\w+, not by the evidence key/);
  });

  it('refuses an altered export and an unsigned one', async () => {
    await deprecationRelease('2026-11-02', '2027-02-15');
    const altered = signed() as { days: { uses: number }[] };
    // One day's count edited after signing (a use hidden).
    (altered.days.at(-40) as { uses: number }).uses = 3;
    removal(altered);
    expect(await refusal()).toMatch(/altered after it was signed/);
    git('reset', '-q', '--hard', 'HEAD~1');
    (altered.days.at(-40) as { uses: number }).uses = 0;
    (altered as unknown as { quietDays: number }).quietDays = 999;
    removal(altered);
    expect(await refusal()).toMatch(/altered after it was signed/);
    git('reset', '-q', '--hard', 'HEAD~1');
    removal(usageExportContent(QUIET, { ...EXPORT, brownouts: [HELD] }));
    expect(await refusal()).toMatch(/it is not signed/);
  });

  it('refuses a removal that no brownout window preceded, or only a cancelled one', async () => {
    await deprecationRelease('2026-11-02', '2027-02-15');
    removal(signed({ brownouts: [] }));
    expect(await refusal()).toMatch(/brownout/i);
    git('reset', '-q', '--hard', 'HEAD~1');
    removal(signed({ brownouts: [{ ...HELD, cancelledAt: '2026-12-01T10:05:00.000Z' }] }));
    expect(await refusal()).toMatch(/brownout/i);
  });

  it('refuses short notice, read from the release date, unless lowered with a reason', async () => {
    await deprecationRelease('2026-12-20', '2027-02-15');
    removal(signed({ brownouts: [{ startsAt: '2027-01-05T10:00:00.000Z', endsAt: '2027-01-05T10:30:00.000Z' }] }));
    expect(await refusal()).toMatch(/notice|90 days/i);
    git('reset', '-q', '--hard', 'HEAD~1');
    removal(signed({ brownouts: [{ startsAt: '2027-01-05T10:00:00.000Z', endsAt: '2027-01-05T10:30:00.000Z' }] }), {
      entry: '    minNoticeDays: 50\n    noticeReason: Every caller of Order.note was told in person on 2026-12-20.\n',
    });
    expect(await refusal()).toBe('');
  });
});
