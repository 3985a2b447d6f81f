/**
 * Who a change would break, from the request-shape record (docs/decisions.md §13): for each impacted item,
 * the recorded shapes that use it, and their callers.
 *   - REST: the operation, parameter, body, body member or enum value, named as the gate names the item; an
 *     enum value or sort key the candidate no longer admits; a body newly required, by the calls without
 *     one; a response member, by the answers that carried it (`answer:*`, or `fields=` naming the resource
 *     member that holds it).
 *   - GraphQL: each recorded signature that validates against the base schema and not against the
 *     candidate, attributed to the items it uses; and, for what validation cannot see, the signatures and
 *     variables that use the item's coordinate.
 *   - gRPC: the rpc, a request field set or an enum value sent; a reply field, by the calls of the rpcs
 *     whose reply holds it; a JSON-name change, by the calls made with the JSON codec.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type ShapeProtocol,
  type ShapeRecordReader,
  type ShapeUse,
  shapeExportReader,
} from '@order-api/contract-registry';
import { namesUsed } from '@order-api/contract-registry/matching';
import {
  buildSchema,
  type DocumentNode,
  type GraphQLSchema,
  OverlappingFieldsCanBeMergedRule,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { Contracts } from '../breaking/gate.js';
import { type ProtoItems, rpcsReplying } from './proto-items.js';
import { responseCarriers } from './rest-carriers.js';

/** What an impacted item is, as the shape record is read for it. */
export interface ShapeQuery {
  contract: 'openapi' | 'graphql' | 'proto';
  item: string;
  rule: string;
  message: string;
  keyword?: string;
  value?: unknown;
}

/** The record's reads impact needs. */
export type ShapeReader = ShapeRecordReader;

/** Matching shape rows, by item. */
export type ShapeMatches = Map<ShapeQuery, ShapeUse[]>;

/** The record's protocol of each contract. */
export const PROTOCOL: Record<ShapeQuery['contract'], ShapeProtocol> = {
  openapi: 'rest',
  graphql: 'graphql',
  proto: 'grpc',
};

/**
 * The record from a signed export (`npm run shapes:export`), checked against the evidence key: `keyFile`,
 * else the base contracts' `evidence-key.pem` (the key the deployment publishes and commits).
 */
export function readShapeExport(file: string, baseDir: string, keyFile?: string): ShapeReader {
  const key = readFileSync(keyFile ?? path.join(baseDir, 'evidence-key.pem'), 'utf8');
  return shapeExportReader(JSON.parse(readFileSync(file, 'utf8')), key);
}

/** Reads the shape rows of the window that use each item. */
export async function shapeMatches({
  reader,
  sinceDay,
  queries,
  base,
  head,
  baseProto,
}: {
  reader: ShapeReader;
  sinceDay: string;
  queries: ShapeQuery[];
  base: Contracts;
  head: Contracts;
  baseProto: ProtoItems;
}): Promise<ShapeMatches> {
  const out: ShapeMatches = new Map();
  const read = async (query: ShapeQuery, select: { shapes?: string[]; prefix?: string }) =>
    reader.uses({ sinceDay, protocol: PROTOCOL[query.contract], ...select });
  const graphql = await graphqlSignatures(reader, sinceDay, base.graphql, head.graphql);
  for (const query of queries) {
    const rows: ShapeUse[] = [];
    if (query.contract === 'openapi') {
      for (const select of restSelections(query, base.openapi)) {
        const found = await read(query, select.shapes ? { shapes: select.shapes } : { prefix: select.prefix ?? '' });
        const kept = found.filter((row) => select.keep?.(row.shape) ?? true);
        rows.push(...(select.combine ? select.combine(kept) : kept));
      }
    } else if (query.contract === 'graphql') {
      const coordinate = query.item;
      rows.push(...graphql.usingCoordinate(coordinate));
      rows.push(...(await read(query, { shapes: [coordinate] })));
      rows.push(...(await read(query, { prefix: `${coordinate}.` })));
    } else {
      rows.push(...(await read(query, { shapes: protoShapes(query, baseProto) })));
    }
    out.set(query, dedupe(rows));
  }
  return out;
}

interface Selection {
  shapes?: string[];
  prefix?: string;
  keep?: (shape: string) => boolean;
  /** What the rows found mean together (calls of an operation without a body: its calls less those with one). */
  combine?: (rows: ShapeUse[]) => ShapeUse[];
}

/** The REST shapes that use an item. */
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML
function restSelections(query: ShapeQuery, document: Record<string, any>): Selection[] {
  const op = /^([A-Z]+ \/\S*)/.exec(query.item)?.[1];
  const known = op && Object.keys(document.paths?.[op.split(' ')[1] as string] ?? {}).length > 0;
  if (query.rule === 'request-enum-value-removed' && query.keyword === 'enum' && Array.isArray(query.value)) {
    // Who sent a value the candidate no longer accepts (values are recorded as the contract spells them).
    const accepted = query.value.map(String);
    return [{ prefix: `${query.item}=`, keep: (shape) => !accepted.includes(shape.slice(shape.lastIndexOf('=') + 1)) }];
  }
  // A request body now required: who called the operation without one, on a day (its calls less those with one).
  if (op && query.rule === 'request-body-required')
    return [{ shapes: [op, `${op} request body`], combine: (rows) => callsWithout(rows, op, `${op} request body`) }];
  // A removed request body (or its JSON media type): who sent one.
  if (op && query.item.startsWith(`${op} request body`)) return [{ shapes: [`${op} request body`] }];
  if (query.rule === 'request-constraint-narrowed' && query.keyword === 'pattern' && / query:sort$/.test(query.item)) {
    const pattern = new RegExp(String(query.value));
    return [{ prefix: `${query.item}=`, keep: (shape) => !pattern.test(shape.split('=').pop() ?? '') }];
  }
  if (query.rule.startsWith('response-') || query.rule === 'success-status-changed') {
    if (known && op) {
      const member = /^[A-Z]+ \S+ \d{3}\.(\w+)/.exec(query.item)?.[1];
      return [{ shapes: [`${op} answer:*`, ...(member ? [`${op} fields:${member}`] : [op])] }];
    }
    const [component, member] = query.item.split('.');
    if (!component || !member) return [];
    const carriers = responseCarriers(document, component, member);
    const answers = carriers.flatMap(({ op: carrier, top }) => [`${carrier} answer:*`, `${carrier} fields:${top}`]);
    // And the webhook deliveries that carried it (recorded under the member's own name).
    return [{ shapes: [...answers, query.item] }];
  }
  if (known && op && (query.item === op || / (\d{3}|path:\w+)$/.test(query.item))) return [{ shapes: [op] }];
  // A parameter, a body member (named as the gate names it), or a request schema narrowed: who sent it.
  return [{ shapes: [query.item] }];
}

/** The gRPC shapes that use an item (a buf finding names `Message.field`; a removal names it in full). */
function protoShapes(query: ShapeQuery, items: ProtoItems): string[] {
  if (items.rpcs.has(query.item) || items.enumValues.has(query.item)) return [query.item];
  const rpc = /RPC "(\w+)" on service "(\w+)"/.exec(query.message);
  if (rpc) return [...items.rpcs.keys()].filter((name) => name.endsWith(`.${rpc[2]}/${rpc[1]}`));
  const field = [...items.fields].find(([name]) => name === query.item || name.endsWith(`.${query.item}`));
  if (!field) return [];
  const [name, { message }] = field;
  const replies = rpcsReplying(items, message);
  if (/JSON_NAME|SAME_NAME/.test(query.rule)) {
    const carriers = [...items.rpcs].filter(([, { input }]) => input === message).map(([rpc]) => rpc);
    return [...carriers, ...replies].map((rpc) => `${rpc} codec:json`);
  }
  return [name, ...replies];
}

/** The recorded signatures of the window, checked against both schemas once. */
async function graphqlSignatures(reader: ShapeReader, sinceDay: string, baseSdl: string, headSdl: string) {
  const rows = await reader.uses({ sinceDay, protocol: 'graphql', prefix: 'sig:' });
  const hashes = [...new Set(rows.map((row) => row.shape.slice(4)))];
  const texts = new Map((await reader.signatures(hashes)).map((entry) => [entry.hash, entry.signature]));
  const [base, head] = [buildSchema(baseSdl), buildSchema(headSdl)];
  const used = new Map<string, { names: ReadonlySet<string>; broken: boolean }>();
  for (const [hash, text] of texts) {
    const document = parseOrUndefined(text);
    if (!document || !validates(base, document)) continue;
    used.set(hash, { names: namesUsed(base, document, {}), broken: !validates(head, document) });
  }
  return {
    /** Rows of signatures that use the coordinate (selected, sent inline) or break on the candidate and use it. */
    usingCoordinate(coordinate: string): ShapeUse[] {
      return rows.filter((row) => {
        const entry = used.get(row.shape.slice(4));
        if (!entry) return false;
        return [...entry.names].some((name) => name === coordinate || name.startsWith(`${coordinate}.`));
      });
    },
    /** Signatures that break on the candidate without using any impacted coordinate (a renamed type, say). */
    brokenRows: (impacted: string[]) =>
      rows.filter((row) => {
        const entry = used.get(row.shape.slice(4));
        return (
          entry?.broken && !impacted.some((coordinate) => [...entry.names].some((name) => name.startsWith(coordinate)))
        );
      }),
  };
}

/** Validation as execution would apply it, but for overlapping fields (the signature drops aliases). */
const RULES = specifiedRules.filter((rule) => rule !== OverlappingFieldsCanBeMergedRule);

function validates(schema: GraphQLSchema, document: DocumentNode): boolean {
  return validate(schema, document, RULES).length === 0;
}

function parseOrUndefined(text: string): DocumentNode | undefined {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** Per caller and day, the calls of `op` that did not send `part`, as rows of `op` counting them. */
function callsWithout(rows: ShapeUse[], op: string, part: string): ShapeUse[] {
  const callerDay = (row: ShapeUse) => `${row.apiKeyId} ${row.client} ${row.day}`;
  const withPart = new Map(rows.filter((row) => row.shape === part).map((row) => [callerDay(row), row.count]));
  return rows
    .filter((row) => row.shape === op)
    .map((row) => ({ ...row, count: row.count - (withPart.get(callerDay(row)) ?? 0) }))
    .filter((row) => row.count > 0);
}

function dedupe(rows: ShapeUse[]): ShapeUse[] {
  const seen = new Map<string, ShapeUse>();
  for (const row of rows) seen.set(`${row.protocol} ${row.shape} ${row.day} ${row.apiKeyId} ${row.client}`, row);
  return [...seen.values()];
}
