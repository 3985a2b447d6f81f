/**
 * The request-shape recorder's buffer (./shape-recorder.ts): the counts waiting for a flush, grouped by caller
 * (protocol, key, client, UTC day) so that a request costs one lookup for its caller and one per shape. Memory
 * is bounded by `maxEntries` distinct entries, `maxEntriesPerKey` of them for one key and `maxSignatureBytes`
 * of signature text; what does not fit is dropped and counted per protocol and day.
 */
import type { NewSignature, ShapeCount, ShapeDrop, ShapeProtocol, ShapeSignature } from '../../ports/index.js';

/** The buffer's caps, and who is told of a drop. */
export interface BufferLimits {
  maxEntries: number;
  maxEntriesPerKey: number;
  maxSignatureBytes: number;
  onDropped: (protocol: ShapeProtocol, count: number) => void;
}

/** One caller's entries of one protocol and day: per shape, its count and first and last use (ms). */
export interface Group {
  protocol: ShapeProtocol;
  apiKeyId: number;
  client: string;
  day: string;
  shapes: Map<string, { count: number; first: number; last: number }>;
}

/** What a flush takes from the buffer. */
export interface Taken {
  counts: ShapeCount[];
  drops: ShapeDrop[];
  signatures: NewSignature[];
}

/** Creates an empty buffer. */
export function shapeBuffer({ maxEntries, maxEntriesPerKey, maxSignatureBytes, onDropped }: BufferLimits) {
  let groups = new Map<string, Group>();
  let entries = 0;
  let perKey = new Map<number, number>();
  let signatures = new Map<string, NewSignature>();
  let signatureBytes = 0;
  let drops = new Map<string, ShapeDrop>();
  let dropped = 0;

  const dropUses = (protocol: ShapeProtocol, count: number) => {
    dropped += count;
    onDropped(protocol, count);
  };

  const group = (protocol: ShapeProtocol, apiKeyId: number, client: string, day: string): Group => {
    const id = `${protocol}\u0000${apiKeyId}\u0000${client}\u0000${day}`;
    let found = groups.get(id);
    if (!found) {
      found = { protocol, apiKeyId, client, day, shapes: new Map() };
      groups.set(id, found);
    }
    return found;
  };

  /** Counts `count` uses of a shape at `first` (to `last`); a new entry past a cap is dropped and counted. */
  const add = (into: Group, shape: string, first: number, count: number, signature?: ShapeSignature, last = first) => {
    const existing = into.shapes.get(shape);
    if (existing) {
      existing.count += count;
      if (first < existing.first) existing.first = first;
      if (last > existing.last) existing.last = last;
      return;
    }
    const keyEntries = perKey.get(into.apiKeyId) ?? 0;
    const text = signature && !signatures.has(signature.hash) ? signature.signature : '';
    if (entries >= maxEntries || keyEntries >= maxEntriesPerKey || signatureBytes + text.length > maxSignatureBytes) {
      addDrop(drops, { protocol: into.protocol, day: into.day, count });
      dropUses(into.protocol, count);
      return;
    }
    into.shapes.set(shape, { count, first, last });
    entries += 1;
    perKey.set(into.apiKeyId, keyEntries + 1);
    if (signature && text) {
      signatures.set(signature.hash, { ...signature, apiKeyId: into.apiKeyId });
      signatureBytes += text.length;
    }
  };

  return {
    group,
    add,
    /** Counts uses dropped after the buffer let them through (the signature table was full). */
    countDropped: (protocol: ShapeProtocol, count: number) => dropUses(protocol, count),
    /** Empties the buffer and returns what it held. */
    take(): Taken {
      const taken = { counts: countsOf(groups), drops: [...drops.values()], signatures: [...signatures.values()] };
      groups = new Map();
      entries = 0;
      perKey = new Map();
      signatures = new Map();
      signatureBytes = 0;
      drops = new Map();
      return taken;
    },
    /** Puts back what a failed flush took, within the same caps. */
    restore(taken: Taken) {
      const texts = new Map(taken.signatures.map((entry) => [entry.hash, entry]));
      for (const entry of taken.counts) {
        const into = group(entry.protocol, entry.apiKeyId, entry.client, entry.day);
        const signature = texts.get(entry.shape.slice('sig:'.length));
        add(into, entry.shape, entry.firstSeen.getTime(), entry.count, signature, entry.lastSeen.getTime());
      }
      for (const entry of taken.drops) addDrop(drops, entry);
    },
    dropped: () => dropped,
    size: () => ({ entries, signatureBytes }),
  };
}

/** The entries of the groups as counts, as the port writes them. */
function countsOf(groups: Map<string, Group>): ShapeCount[] {
  const counts: ShapeCount[] = [];
  for (const { protocol, apiKeyId, client, day, shapes } of groups.values()) {
    for (const [shape, { count, first, last }] of shapes) {
      counts.push({
        protocol,
        shape,
        apiKeyId,
        client,
        day,
        count,
        firstSeen: new Date(first),
        lastSeen: new Date(last),
      });
    }
  }
  return counts;
}

/** Adds dropped shapes to the count of their protocol and day. */
function addDrop(drops: Map<string, ShapeDrop>, { protocol, day, count }: ShapeDrop): void {
  const id = `${protocol}\u0000${day}`;
  const existing = drops.get(id);
  if (existing) existing.count += count;
  else drops.set(id, { protocol, day, count });
}
