/**
 * The records the contract gate reads about callers: the request-shape record (what each caller sent, per
 * protocol and UTC day, as names, never values) and the deprecation usage, in short. The service writes
 * them; impact analysis reads them, from the service's database or from a signed export.
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

/** A GraphQL operation's signature , stored once by its hash. */
export interface ShapeSignature {
  hash: string;
  signature: string;
}

/** A shape row joined with its key's label and owner. */
export interface ShapeUse extends ShapeCount {
  label: string | null;
  ownerName: string | null;
  ownerEmail: string | null;
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

/** The reads impact analysis makes of the shape record. */
export interface ShapeRecordReader {
  /** Every row from `sinceDay` on of `protocol`, whose shape is one of `shapes` or starts with `prefix` (both optional). */
  uses(query: { sinceDay: string; protocol?: ShapeProtocol; shapes?: string[]; prefix?: string }): Promise<ShapeUse[]>;
  /** The stored signatures among `hashes`. */
  signatures(hashes: string[]): Promise<ShapeSignature[]>;
  /** Per day from `sinceDay` on: instances that served and flushed, and the drops per protocol. */
  coverage(sinceDay: string): Promise<ShapeCoverage[]>;
}

/** A caller in short, as the usage export and impact analysis list the callers still using an item. */
export interface CallerSummary {
  apiKeyId: number;
  owner: string | null;
  email: string | null;
  clients: string[];
  uses: number;
  brownoutHits: number;
  lastSeen: string;
}
