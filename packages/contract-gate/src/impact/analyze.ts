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
import type { CallerSummary, RegistryItem } from '@order-api/contract-registry';
import { namesUsed, restMatcher } from '@order-api/contract-registry/matching';
import { buildSchema, type GraphQLSchema, parse, validate } from 'graphql';
import { type Contracts, readContracts } from '../breaking/gate.js';
import { diffGraphql } from '../breaking/graphql-diff.js';
import type { Change } from '../breaking/model.js';
import { diffOpenApi } from '../breaking/openapi-diff.js';
import { diffProto } from '../breaking/proto-diff.js';
import { operationIds, operationOf, registryIdsOf } from '../breaking/registry-ids.js';
import { buildRegistry } from '../registry/build-registry.js';
import { callersOfRows, coverageOf, type ImpactCaller, type ImpactCoverage, mergeCallers } from './impact-callers.js';
import { protoItems, protoRemovals } from './proto-items.js';
import { PROTOCOL, type ShapeReader, shapeMatches } from './shape-callers.js';

export type { ImpactCaller, ImpactCoverage } from './impact-callers.js';

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
  /** Callers in the window; null when no record was read or neither record measured the item. */
  callers: ImpactCaller[] | null;
  /** How much of the window the request-shape record measured (null: it was not read). */
  coverage: ImpactCoverage | null;
  /** A narrowed input rule's keyword and new value (`enum`: the values still accepted), as the finding gives them. */
  keyword?: string;
  value?: unknown;
}

/** Reads the callers of registry ids (the usage database), or null without one. */
export type CallerSource = ((ids: string[]) => Promise<CallerSummary[]>) | null;

/** The request-shape record to read, and its window. */
export interface ShapeSource {
  reader: ShapeReader;
  sinceDay: string;
  days: number;
}

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

/** Compares the contracts of two directories and lists the impact of each breaking change. */
export async function analyzeImpact({
  root,
  baseDir,
  headDir,
  callers,
  shapes = null,
}: {
  root: string;
  baseDir: string;
  headDir: string;
  callers: CallerSource;
  shapes?: ShapeSource | null;
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
    coverage: null,
    ...(change.keyword === undefined ? {} : { keyword: change.keyword, value: change.value }),
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
      coverage: null,
    });
  }
  // Every proto field, rpc or enum value the candidate removes, `reserved` or not (buf passes the former).
  const [baseProto, headProto] = [protoItems(baseDir), protoItems(headDir)];
  for (const removal of protoRemovals(baseProto, headProto)) {
    const named = (impact: Impact) => impact.item === removal.item || removal.item.endsWith(`.${impact.item}`);
    if (impacts.some((impact) => impact.contract === 'proto' && named(impact))) continue;
    impacts.push({
      contract: 'proto',
      item: removal.item,
      rule: `proto-${removal.kind}-removed`,
      message: `${removal.item}: the ${removal.kind.replace('-', ' ')} is gone from the candidate`,
      registryIds: [],
      restOperations: [],
      persistedOperations: [],
      grpcMethods: removal.kind === 'rpc' ? [removal.item] : [],
      callers: null,
      coverage: null,
    });
  }
  const baseSchema = buildSchema(base.graphql);
  const broken = brokenOperations(path.join(headDir, 'operations'), baseSchema, buildSchema(head.graphql));
  const attributed = new Set<string>();
  const baseIds = operationIds(base.openapi);
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
      const carries = ([, { input, output }]: [string, { input: string; output: string }]) =>
        [input, output].some((name) => name.endsWith(`.${message}`));
      if (impact.grpcMethods.length === 0)
        impact.grpcMethods = rpc
          ? [`${rpc[2]}/${rpc[1]}`]
          : message
            ? [...baseProto.rpcs].filter(carries).map(([name]) => name)
            : [];
    }
    if (callers && impact.registryIds.length > 0)
      impact.callers = mergeCallers(await callers(impact.registryIds), null);
  }
  if (shapes) await addShapeCallers(impacts, shapes, { base, head, baseProto });
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

/** Adds to each impact the callers the request-shape record names, and the record's coverage. */
async function addShapeCallers(
  impacts: Impact[],
  { reader, sinceDay, days }: ShapeSource,
  sides: Omit<Parameters<typeof shapeMatches>[0], 'reader' | 'sinceDay' | 'queries'>,
): Promise<void> {
  const matches = await shapeMatches({ reader, sinceDay, queries: impacts, ...sides });
  const coverage = await reader.coverage(sinceDay);
  for (const impact of impacts) {
    impact.coverage = coverageOf(coverage, PROTOCOL[impact.contract], days);
    const measured = impact.coverage.measuredDays > 0;
    const rows = callersOfRows(matches.get(impact) ?? []);
    impact.callers = mergeCallers(impact.callers, measured || rows.length > 0 ? rows : null);
  }
}
