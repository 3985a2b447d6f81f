/** Loads the corpus of contract edits (./fixtures/corpus) and writes each edit's contracts. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import type { Contracts } from '../src/breaking/gate.js';
import type { Twin } from '../src/project.js';

export const corpusDir = path.resolve(import.meta.dirname, 'fixtures/corpus');
export const baseDir = path.join(corpusDir, 'base');

/** The twins of the corpus's contracts (corpus/twins.yaml). */
export function corpusTwins(): Twin[] {
  return parse(readFileSync(path.join(corpusDir, 'twins.yaml'), 'utf8')) as Twin[];
}

type Json = Record<string, any>;
export type Contract = 'openapi' | 'graphql' | 'proto';
const FILES: Record<Contract, string> = {
  openapi: 'openapi.yaml',
  graphql: 'schema.graphql',
  proto: 'inventory/v1/inventory.proto',
};
const PROTO = FILES.proto;
const LABEL: Record<Contract, string> = { openapi: 'REST', graphql: 'GraphQL', proto: 'gRPC' };
const SOURCES: Record<Contract, string> = { openapi: 'rest.yaml', graphql: 'graphql.yaml', proto: 'proto.yaml' };

interface Op {
  set?: string;
  delete?: string;
  push?: string;
  move?: string;
  path?: string;
  value?: unknown;
}

/** One edit of the corpus, and the verdict the gate must reach. */
export interface Edit {
  contract: Contract;
  name: string;
  row?: string;
  /** The blocking rule, or undefined for an edit that must pass. */
  expect?: string;
  /** For an edit that must pass: a rule the gate must still report, proving it saw the edit. */
  finding?: string;
  ops?: Op[];
  replace?: Array<[string, string]>;
  acknowledge?: string[];
  /** The items the plain entry names (the changed or added items, as the naming rule wants them). */
  names?: string[];
  changelog?: string;
}

/** Every edit of the three corpus files. */
export function loadCorpus(): Edit[] {
  return (Object.keys(SOURCES) as Contract[]).flatMap((contract) => {
    const file = parse(readFileSync(path.join(corpusDir, SOURCES[contract]), 'utf8')) as {
      breaking: Edit[];
      passing: Edit[];
    };
    return [
      ...file.breaking.map((edit) => ({ ...edit, contract })),
      ...file.passing.map((edit) => ({ ...edit, contract, expect: undefined })),
    ];
  });
}

const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** The parent object and key a JSON Pointer names; the parent must exist. */
function locate(document: Json, pointer: string): [Json, string] {
  const tokens = pointer.split('/').slice(1).map(unescapeToken);
  const key = tokens.pop() as string;
  const parent = tokens.reduce<Json>((node, token) => {
    const next = node?.[token] as Json | undefined;
    if (next === undefined) throw new Error(`${pointer}: "${token}" does not exist`);
    return next;
  }, document);
  return [parent, key];
}

function applyOp(document: Json, op: Op): void {
  if (op.set) {
    const [parent, key] = locate(document, op.set);
    parent[key] = op.value;
  } else if (op.delete || op.move) {
    const [parent, key] = locate(document, (op.delete ?? op.move) as string);
    if (parent[key] === undefined) throw new Error(`${op.delete ?? op.move} does not exist`);
    const value = parent[key];
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
    if (op.move) {
      const [target, name] = locate(document, op.path as string);
      target[name] = value;
    }
  } else if (op.push) {
    const [parent, key] = locate(document, op.push);
    (parent[key] as unknown[]).push(op.value);
  }
}

/** The changelog the edit comes with: its own, or a plain Added entry naming what it names and acknowledges. */
export function changelogFor(edit: Edit): string {
  const named = [...(edit.names ?? []), ...(edit.acknowledge ?? [])];
  const body =
    edit.changelog ??
    `### Added\n\n- ${LABEL[edit.contract]}: corpus edit "${edit.name}"${named.map((item) => `, \`${item}\``).join('')}.\n`;
  return `# Changelog\n\n## [Unreleased]\n\n${body}\n## [1.0.0] - 2026-11-23\n\n### Added\n\n- REST, GraphQL, gRPC: first release.\n`;
}

function replaceOnce(text: string, edit: Edit): string {
  let edited = text;
  for (const [from, to] of edit.replace ?? []) {
    const count = edited.split(from).length - 1;
    if (count !== 1) throw new Error(`"${from}" occurs ${count} times in ${FILES[edit.contract]}`);
    edited = edited.replace(from, () => to);
  }
  return edited;
}

/** The edited contracts, built in memory from the base; throws when an edit does not apply or changes nothing. */
export function buildVariant(edit: Edit, base: Contracts): Contracts {
  const head: Contracts = { openapi: base.openapi, graphql: base.graphql, proto: new Map(base.proto) };
  if (edit.contract === 'openapi') {
    head.openapi = structuredClone(base.openapi);
    for (const op of edit.ops ?? []) applyOp(head.openapi, op);
    if (isDeepStrictEqual(head.openapi, base.openapi)) throw new Error(`the edit "${edit.name}" changes nothing`);
  } else if (edit.contract === 'graphql') {
    head.graphql = replaceOnce(base.graphql, edit);
  } else {
    head.proto.set(PROTO, replaceOnce(base.proto.get(PROTO) ?? '', edit));
  }
  return head;
}

/** Writes a proto edit's contracts into `dir`, for buf. */
export function writeProtoVariant(head: Contracts, dir: string): void {
  mkdirSync(path.join(dir, 'inventory/v1'), { recursive: true });
  writeFileSync(path.join(dir, PROTO), head.proto.get(PROTO) ?? '');
}
