/**
 * The storage port of the request-shape record (docs/decisions.md §13): what each caller sent, per protocol
 * and UTC day, as names (operations, parameters, members, enum values, GraphQL signatures), never values.
 * Written in additive batches by every instance; read by impact analysis and by a key's own shapes.
 */

/** The protocols a shape is recorded for. */
export type ShapeProtocol = 'rest' | 'graphql' | 'grpc';

/** Uses of one shape by one caller on one UTC day. */
export interface ShapeCount {
  protocol: ShapeProtocol;
  shape: string;
  /** The issued key's id; 0 = no key. */
  apiKeyId: number;
  /** `name/version` from User-Agent, `unknown`, `other` past the per-key cap, or `(own) …` for the product's own calls. */
  client: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
}

/** Shapes one protocol's recorder dropped on one UTC day because a cap was reached. */
export interface ShapeDrop {
  protocol: ShapeProtocol;
  day: string;
  count: number;
}

/** A GraphQL operation's signature (./../shape-signature.ts), stored once by its hash. */
export interface ShapeSignature {
  hash: string;
  signature: string;
}

/** A signature to store, with the key that sent it first (0: no key). */
export interface NewSignature extends ShapeSignature {
  apiKeyId: number;
}

/** The signature table's caps. */
export interface SignatureLimits {
  max: number;
  /** Signatures first sent by one key (or by calls without a key). */
  maxPerKey: number;
}

/** What an instance notes with a flush, besides its counts. */
export interface ShapeFlush {
  instance: string;
  at: Date;
  /** The UTC days this flush completes for the instance (its previous flush's day to the day of `at`). */
  days: string[];
  dropped: ShapeDrop[];
  /** Signatures the counts name that may not be stored yet. */
  signatures: NewSignature[];
}

/** A shape row joined with its key's label and owner. */
export interface ShapeUse extends ShapeCount {
  label: string | null;
  ownerName: string | null;
  ownerEmail: string | null;
}

/** One shape of one key over a period: its uses, first and last use, clients, and a signature's text. */
export interface KeyShape {
  protocol: ShapeProtocol;
  shape: string;
  signature: string | null;
  uses: number;
  firstSeen: Date;
  lastSeen: Date;
  clients: string[];
}

/** How completely shapes were measured on one UTC day. */
export interface ShapeCoverage {
  day: string;
  /** Instances that served that day (registered or flushed). */
  served: number;
  /** Of those, the ones that flushed shapes for it. */
  flushed: number;
  /** Shapes dropped that day, per protocol. */
  dropped: Partial<Record<ShapeProtocol, number>>;
}

/** The record in the database. */
export interface ShapePort {
  /**
   * Stores the new signatures within `limits` and adds the counts, the drops and the instance's heartbeat, in
   * one transaction. A count naming a signature that could not be stored is not added; it is counted as
   * dropped. Returns how many uses were dropped that way.
   */
  add(counts: ShapeCount[], flush: ShapeFlush, limits: SignatureLimits): Promise<number>;
  /** Notes that an instance serves from `at` on. */
  register(heartbeat: { instance: string; at: Date }): Promise<void>;
  /** Every row from `sinceDay` on of `protocol`, whose shape is one of `shapes` or starts with `prefix` (both optional). */
  uses(query: { sinceDay: string; protocol?: ShapeProtocol; shapes?: string[]; prefix?: string }): Promise<ShapeUse[]>;
  /** The stored signatures among `hashes`. */
  signatures(hashes: string[]): Promise<ShapeSignature[]>;
  /** Per day from `sinceDay` on: instances that served and flushed, and the drops per protocol. */
  coverage(sinceDay: string): Promise<ShapeCoverage[]>;
  /** One key's shapes from `sinceDay` on (of `protocol`, if given), summed over the days, each with its signature's text. */
  keyShapes(apiKeyId: number, query: { sinceDay: string; protocol?: ShapeProtocol }): Promise<KeyShape[]>;
  /** Deletes the rows of days before `beforeDay`, and the signatures no row names any longer. */
  purge(beforeDay: string): Promise<void>;
}
