/**
 * The storage port of the request-shape record (docs/decisions.md §13): what each caller sent, per protocol
 * and UTC day, as names (operations, parameters, members, enum values, GraphQL signatures), never values.
 * Written in additive batches by every instance; read by impact analysis and by a key's own shapes.
 */
import type { ShapeCount, ShapeProtocol, ShapeRecordReader, ShapeSignature } from '@order-api/contract-registry';

export type {
  ShapeCount,
  ShapeCoverage,
  ShapeProtocol,
  ShapeRecordReader,
  ShapeSignature,
  ShapeUse,
} from '@order-api/contract-registry';

/** Shapes one protocol's recorder dropped on one UTC day because a cap was reached. */
export interface ShapeDrop {
  protocol: ShapeProtocol;
  day: string;
  count: number;
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

/** The record in the database. */
export interface ShapePort extends ShapeRecordReader {
  /**
   * Stores the new signatures within `limits` and adds the counts, the drops and the instance's heartbeat, in
   * one transaction. A count naming a signature that could not be stored is not added; it is counted as
   * dropped. Returns how many uses were dropped that way.
   */
  add(counts: ShapeCount[], flush: ShapeFlush, limits: SignatureLimits): Promise<number>;
  /** Notes that an instance serves from `at` on. */
  register(heartbeat: { instance: string; at: Date }): Promise<void>;
  /** One key's shapes from `sinceDay` on (of `protocol`, if given), summed over the days, each with its signature's text. */
  keyShapes(apiKeyId: number, query: { sinceDay: string; protocol?: ShapeProtocol }): Promise<KeyShape[]>;
  /** Deletes the rows of days before `beforeDay`, and the signatures no row names any longer. */
  purge(beforeDay: string): Promise<void>;
}
