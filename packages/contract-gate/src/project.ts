/**
 * What the gate needs from the project whose contracts it guards, beyond the contract files: the members
 * that are one input in two contracts (twins), and the project's live records of its callers. A project
 * states them in `contract-gate.config.ts` at its root (a default export); both are optional.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallerSummary, ShapeRecordReader } from '@order-api/contract-registry';

/**
 * Two members that are one input of the service in two contracts, as `<contract>:<member>` (`openapi:OrderCreate`,
 * `graphql:Query.orders.first`, `proto:ReserveRequest.sku`). A pair of objects pairs their members of the
 * same name.
 */
export type Twin = readonly [string, string];

/** The references of a member's twins (`graphql:CreateOrderInput.note` → `openapi:OrderCreate.note`). */
export type TwinLookup = (reference: string) => string[];

/** The lookup of a list of pairs: through a member pair, or through the pair of the objects that hold it. */
export function twinLookup(pairs: readonly Twin[]): TwinLookup {
  return (reference) => {
    const found = new Set<string>();
    for (const [a, b] of pairs) {
      for (const [mine, theirs] of [
        [a, b],
        [b, a],
      ] as const) {
        if (reference === mine) found.add(theirs);
        else if (reference.startsWith(`${mine}.`)) found.add(`${theirs}${reference.slice(mine.length)}`);
      }
    }
    return [...found];
  };
}

/** The project's live record, open: its request shapes and its deprecation usage. */
export interface LiveRecord {
  shapes: ShapeRecordReader;
  /** The callers of registry ids from `sinceDay` on (UTC `YYYY-MM-DD`), in short, most recent first. */
  callers(ids: string[], sinceDay: string): Promise<CallerSummary[]>;
}

/** Where the project keeps its records of callers (its database). */
export interface LiveRecords {
  /** Whether the owner named the record explicitly (a server may hold an implicit one). */
  named(): boolean;
  /** Whether a record exists to read, named or implicit. */
  present(): boolean;
  /** Opens the record for `use`, and closes it. */
  open<T>(use: (record: LiveRecord) => Promise<T>): Promise<T>;
}

/** A project's answers to the gate. */
export interface GateProject {
  twins?: readonly Twin[];
  records?: LiveRecords;
}

/** The file a project states its answers in. */
export const PROJECT_FILE = 'contract-gate.config.ts';

/** What the gate reads of a project: its twins as a lookup, and its records. */
export interface LoadedProject {
  twins?: TwinLookup;
  records?: LiveRecords;
}

/** The project at `root`: its `contract-gate.config.ts`, or nothing when it has none. */
export async function loadProject(root: string): Promise<LoadedProject> {
  const file = path.join(root, PROJECT_FILE);
  if (!existsSync(file)) return {};
  const { twins, records } = ((await import(pathToFileURL(file).href)) as { default?: GateProject }).default ?? {};
  return { ...(twins ? { twins: twinLookup(twins) } : {}), ...(records ? { records } : {}) };
}
