/**
 * Impact analysis (spec §9.2: measure before removing): for every item the working contracts remove or
 * change incompatibly against the released ones, what breaks and who. The breaking findings of the
 * release gate's diffs, plus every deprecated or watched registry item that is gone (a proto field retired
 * with `reserved` passes buf, yet its senders lose it), each with:
 *   - REST: the operations it belongs to (the finding's own operation, or every operation that can carry
 *     a removed property);
 *   - GraphQL: the persisted operations of contracts/operations/ that stop validating because of it;
 *   - gRPC: the methods whose request or reply holds the message;
 *   - the callers seen using it in the usage database (when one is given): key, owner, email, clients.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLSchema, parse, validate } from 'graphql';
import type { CallerSummary } from '../../src/core/deprecation-callers.js';
import type { RegistryItem } from '../../src/core/deprecation-registry.js';
import { namesUsed } from '../../src/deprecation-matching/graphql.js';
import { restMatcher } from '../../src/deprecation-matching/rest.js';
import { type Contracts, readContracts } from '../breaking/gate.js';
import { diffGraphql } from '../breaking/graphql-diff.js';
import { diffOpenApi } from '../breaking/openapi-diff.js';
import { diffProto } from '../breaking/proto-diff.js';
import { operationIds, operationOf, registryIdsOf } from '../breaking/registry-ids.js';
import type { Change } from '../breaking/report.js';
import { buildRegistry } from '../deprecations/build-registry.js';

/** A caller seen using an item: key, owner, email, clients, uses and brownout hits. */
export type ImpactCaller = CallerSummary;

/** One impacted item. */
export interface Impact {
  contract: Change['contract'];
  item: string;
  rule: string;
  message: string;
  /** The deprecation registry ids the item is measured under (none: it was never measured). */
  registryIds: string[];
  restOperations: string[];
  persistedOperations: string[];
  grpcMethods: string[];
  /** Callers in the window; null when no usage database was read or the item is not measured. */
  callers: ImpactCaller[] | null;
}

/** Reads the callers of registry ids (the usage database), or null without one. */
export type CallerSource = ((ids: string[]) => Promise<ImpactCaller[]>) | null;

/** The persisted operations (file names) that validate against the base schema but not the head's. */
function brokenOperations(dir: string, base: GraphQLSchema, head: GraphQLSchema) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .flatMap((file) => {
      const document = parse(readFileSync(path.join(dir, file), 'utf8'));
      if (validate(base, document).length > 0 || validate(head, document).length === 0) return [];
      return [{ file, uses: namesUsed(base, document, {}) }];
    });
}

/** The rpcs of a proto text whose request or reply is `message`. */
function methodsOf(proto: string, message: string): string[] {
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(proto)?.[1] ?? '';
  const methods: string[] = [];
  for (const service of proto.matchAll(/service\s+(\w+)\s*\{([\s\S]*?)\n\}/g)) {
    for (const rpc of (service[2] ?? '').matchAll(
      /rpc\s+(\w+)\s*\(\s*(?:stream\s+)?(\w+)\s*\)\s*returns\s*\(\s*(?:stream\s+)?(\w+)\s*\)/g,
    )) {
      if (rpc[2] === message || rpc[3] === message) methods.push(`${pkg}.${service[1]}/${rpc[1]}`);
    }
  }
  return methods;
}

/** Compares the contracts of two directories and lists the impact of each breaking change. */
export async function analyzeImpact({
  root,
  baseDir,
  headDir,
  callers,
}: {
  root: string;
  baseDir: string;
  headDir: string;
  callers: CallerSource;
}): Promise<{ impacts: Impact[]; unattributedOperations: string[] }> {
  const base = readContracts(baseDir);
  const head = readContracts(headDir);
  const baseRegistry = buildRegistry(baseDir).registry;
  const headIds = new Set(buildRegistry(headDir).registry.items.map((item) => item.id));
  const changes = [
    ...diffOpenApi(base.openapi, head.openapi),
    ...(await diffGraphql(base.graphql, head.graphql)),
    ...diffProto(root, baseDir, headDir),
  ].filter((change) => change.breaking);
  const impacts: Impact[] = changes.map((change) => ({
    contract: change.contract,
    item: change.item,
    rule: change.rule,
    message: change.message,
    registryIds: registryIdsOf(change, baseRegistry, base.openapi),
    restOperations: [],
    persistedOperations: [],
    grpcMethods: [],
    callers: null,
  }));
  // Measured items that are gone, where no finding covers them (a retired proto field, say).
  const covered = new Set(impacts.flatMap((impact) => impact.registryIds));
  for (const item of baseRegistry.items) {
    if (headIds.has(item.id) || covered.has(item.id) || stillThere(item, head)) continue;
    impacts.push({
      contract: ({ rest: 'openapi', graphql: 'graphql', grpc: 'proto' } as const)[item.protocol],
      item: item.name,
      rule: 'registry-item-removed',
      message: `${item.name} (${item.id}): a ${item.status} item is gone from the contract`,
      registryIds: [item.id],
      restOperations: [],
      persistedOperations: [],
      grpcMethods: [],
      callers: null,
    });
  }
  const baseSchema = buildSchema(base.graphql);
  const broken = brokenOperations(path.join(headDir, 'operations'), baseSchema, buildSchema(head.graphql));
  const attributed = new Set<string>();
  const baseIds = operationIds(base.openapi);
  const baseProto = [...base.proto.values()].join('\n');
  for (const impact of impacts) {
    if (impact.contract === 'openapi') {
      const own = operationOf(impact);
      const carriers = impact.registryIds.flatMap((id) => restMatcher(baseRegistry, base.openapi).operationsUsing(id));
      const names = [...baseIds].filter(([, id]) => carriers.includes(id)).map(([name]) => name);
      impact.restOperations = [...new Set([...(own ? [own] : []), ...names])].sort();
    }
    if (impact.contract === 'graphql') {
      const coordinate = impact.item;
      impact.persistedOperations = broken
        .filter(({ uses }) => [...uses].some((name) => name === coordinate || name.startsWith(`${coordinate}.`)))
        .map(({ file }) => file);
      for (const file of impact.persistedOperations) attributed.add(file);
    }
    if (impact.contract === 'proto') {
      // `Message.field` (a finding) or `package.Message.field` (a registry name).
      const segments = impact.item.split('.');
      const message = segments.length >= 2 ? segments.at(-2) : undefined;
      const rpc = /RPC "(\w+)" on service "(\w+)"/.exec(impact.message);
      impact.grpcMethods = rpc ? [`${rpc[2]}/${rpc[1]}`] : message ? methodsOf(baseProto, message) : [];
    }
    if (callers && impact.registryIds.length > 0) impact.callers = await callers(impact.registryIds);
  }
  return { impacts, unattributedOperations: broken.map(({ file }) => file).filter((file) => !attributed.has(file)) };
}

/** Whether a registry item's coordinates still exist in the head contracts (only its mark went). */
function stillThere(item: RegistryItem, head: Contracts): boolean {
  const match = item.match;
  if (item.protocol === 'grpc' && match.on === 'field' && 'number' in match) {
    const message = match.message.split('.').pop() as string;
    const body = new RegExp(`message\\s+${message}\\s*\\{([\\s\\S]*?)\\n\\}`).exec(
      [...head.proto.values()].join('\n'),
    )?.[1];
    return body !== undefined && new RegExp(`\\b${match.field}\\s*=\\s*${match.number}\\b`).test(body);
  }
  // REST and GraphQL removals are findings of their diffs; only the mark can have gone without one.
  return true;
}

/** The report as a table: each impacted item, what it breaks, and who. */
export function impactTable(impacts: Impact[], unattributed: string[], measured: boolean, days: number): string {
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  if (impacts.length === 0) print('No item is removed or changed incompatibly.');
  for (const impact of impacts) {
    print(`${impact.contract.padEnd(8)} ${impact.item}  [${impact.rule}]`);
    print(`         ${impact.message}`);
    if (impact.restOperations.length > 0) print(`         REST operations: ${impact.restOperations.join(', ')}`);
    if (impact.persistedOperations.length > 0)
      print(`         persisted GraphQL operations that stop validating: ${impact.persistedOperations.join(', ')}`);
    if (impact.grpcMethods.length > 0) print(`         gRPC methods: ${impact.grpcMethods.join(', ')}`);
    if (!measured)
      print('         callers: not read (no usage database: set DATABASE_URL, or DATA_DIR for the embedded one)');
    else if (impact.callers === null) print('         callers: not measured (not in the deprecation registry)');
    else if (impact.callers.length === 0) print(`         callers: none in the last ${days} days`);
    else {
      print(`         callers in the last ${days} days (who breaks):`);
      for (const caller of impact.callers) {
        const owner = caller.apiKeyId === 0 ? '(anonymous)' : `${caller.owner ?? ''} <${caller.email ?? ''}>`;
        print(
          `           key ${caller.apiKeyId} ${owner} [${caller.clients.join(', ')}] ${caller.uses} uses, ` +
            `${caller.brownoutHits} brownout hits, last ${caller.lastSeen}`,
        );
      }
    }
  }
  if (unattributed.length > 0) print(`\nOther persisted operations that stop validating: ${unattributed.join(', ')}`);
  return lines.join('\n');
}
