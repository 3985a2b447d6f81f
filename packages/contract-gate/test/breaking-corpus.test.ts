/**
 * The corpus proves the gate: every edit in ./fixtures/corpus is classified as its entry says,
 * for the reason it says (the rule that blocks it). Diffing runs in-process; buf runs once for all proto edits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contracts, type GateResult, readContracts, runGate } from '../src/breaking/gate.js';
import type { Change } from '../src/breaking/model.js';
import { diffProtoMany } from '../src/breaking/proto-diff.js';
import { twinLookup } from '../src/project.js';
import {
  baseDir,
  buildVariant,
  changelogFor,
  corpusTwins,
  type Edit,
  loadCorpus,
  writeProtoVariant,
} from './breaking-corpus.js';

// The checkout: its buf.yaml (breaking rules) and contracts/buf (protovalidate's definitions).
const root = path.resolve(import.meta.dirname, '../../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'breaking-corpus-'));
const corpus = loadCorpus();
const twins = twinLookup(corpusTwins());
const heads = new Map<Edit, Contracts>();
const protoChanges = new Map<Edit, Change[]>();
const verdicts = new Map<Edit, GateResult>();
const base = readContracts(baseDir);

beforeAll(() => {
  for (const edit of corpus) heads.set(edit, buildVariant(edit, base));
  const protoEdits = corpus.filter((edit) => edit.contract === 'proto');
  const pairs = protoEdits.map((edit, index) => {
    const headDir = path.join(scratch, `p${index}`);
    writeProtoVariant(heads.get(edit) as Contracts, headDir);
    return { baseDir, headDir };
  });
  const results = diffProtoMany(root, pairs);
  for (const [index, edit] of protoEdits.entries()) protoChanges.set(edit, results[index] ?? []);
}, 60_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  const count = (contract: string, breaking: boolean) =>
    corpus.filter((edit) => edit.contract === contract && Boolean(edit.expect) === breaking).length;
  const right = corpus.filter((edit) => {
    const verdict = verdicts.get(edit);
    if (!verdict) return false;
    return edit.expect
      ? verdict.blocking.some((finding) => finding.rule === edit.expect)
      : verdict.blocking.length === 0;
  }).length;
  const line = (breaking: boolean) =>
    `${count('openapi', breaking) + count('graphql', breaking) + count('proto', breaking)} ` +
    `(REST ${count('openapi', breaking)}, GraphQL ${count('graphql', breaking)}, gRPC ${count('proto', breaking)})`;
  console.log(
    `breaking-change corpus: ${line(true)} breaking edits, ${line(false)} non-breaking edits; ${right} of ${corpus.length} classified right`,
  );
});

async function verdictOf(edit: Edit): Promise<GateResult> {
  const result = await runGate({
    root,
    baseDir,
    headDir: baseDir,
    base,
    head: heads.get(edit),
    changelog: changelogFor(edit),
    retirements: [],
    today: '2026-11-23',
    protoChanges: protoChanges.get(edit) ?? [],
    twins,
  });
  verdicts.set(edit, result);
  return result;
}

const describeBlocking = (result: GateResult) =>
  result.blocking.map((finding) => `[${finding.rule}] ${finding.message}`).join('\n') || '(nothing blocks)';

describe('the corpus of contract edits', () => {
  it('holds at least 40 breaking and 15 non-breaking edits, covering every row of the breaking-change table (docs/decisions.md §7)', () => {
    expect(corpus.filter((edit) => edit.expect).length).toBeGreaterThanOrEqual(40);
    expect(corpus.filter((edit) => !edit.expect).length).toBeGreaterThanOrEqual(15);
    const rows = new Set(corpus.map((edit) => edit.row).filter(Boolean));
    for (const row of [
      'add a response field',
      'add an error code value',
      'add an optional request parameter',
      'add an endpoint',
      'remove or rename a field',
      "change a field's type",
      "change a field's meaning (same name and type)",
      'add a required request parameter',
      'change a URL or method',
      'rename or remove a query parameter',
      'change a list response from array to object',
      "change the meaning of an endpoint's method",
    ])
      expect(rows, row).toContain(row);
  });

  const breaking = corpus.filter((edit) => edit.expect);
  it.each(breaking.map((edit) => [`${edit.contract}: ${edit.name} → ${edit.expect}`, edit] as const))(
    'blocks %s',
    async (_, edit) => {
      const result = await verdictOf(edit);
      expect(
        result.blocking.map((finding) => finding.rule),
        describeBlocking(result),
      ).toContain(edit.expect);
      for (const finding of result.blocking) expect(finding.message).not.toMatch(/\.\.\/shared/);
    },
  );

  const passing = corpus.filter((edit) => !edit.expect);
  it.each(passing.map((edit) => [`${edit.contract}: ${edit.name}`, edit] as const))('passes %s', async (_, edit) => {
    const result = await verdictOf(edit);
    expect(result.blocking, describeBlocking(result)).toEqual([]);
    if (edit.finding) expect(result.findings.map((finding) => finding.rule)).toContain(edit.finding);
  });
});
