/**
 * Records request shapes off the request path (docs/decisions.md §13), apart from deprecation usage: its own
 * buffer, caps, drops and heartbeats, so a flood of distinct shapes never costs a deprecation use.
 *
 * `record` only adds to an in-memory buffer; a timer flushes it every `flushMs` as one additive batch, and
 * `close` flushes what is left. Memory is bounded three ways: at most `maxEntries` distinct (protocol, shape,
 * caller, day) entries wait, at most `maxEntriesPerKey` of them for one key (so one key's flood of distinct
 * documents cannot blind the others), and at most `maxSignatureBytes` of GraphQL signature text. A shape
 * beyond a cap is dropped and counted per protocol and day, written with the next flush. Once a UTC day,
 * rows older than `retentionDays` are purged.
 */
import type { NewSignature, ShapeCount, ShapeDrop, ShapePort, ShapeProtocol, ShapeSignature } from './ports/shapes.js';
import { clientTable, daysBetween, utcDays } from './usage-recorder.js';

/** Who sent a request, as the record names it. */
export interface ShapeCaller {
  /** The issued key's id; 0 or null = no key. */
  apiKeyId: number | null;
  client: string;
}

/** The recorder's settings. */
export interface ShapeRecorderOptions {
  port: ShapePort;
  instance: string;
  flushMs?: number;
  maxEntries?: number;
  maxEntriesPerKey?: number;
  maxSignatureBytes?: number;
  /** Signatures kept in the database at most, and first sent by one key at most. */
  maxSignatures?: number;
  maxSignaturesPerKey?: number;
  retentionDays?: number;
  maxClientsPerKey?: number;
  onError?: (error: unknown) => void;
  /** Told of every shape dropped (a metric by protocol, say). */
  onDropped?: (protocol: ShapeProtocol, count: number) => void;
  now?: () => Date;
}

/** A running recorder. */
export interface ShapeRecorder {
  /** Adds one request's shapes; a GraphQL operation also names its signature (`sig:<hash>` is among `shapes`). */
  record(protocol: ShapeProtocol, caller: ShapeCaller, shapes: Iterable<string>, signature?: ShapeSignature): void;
  register(): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Shapes dropped since start (buffer caps and the signature table's). */
  readonly dropped: number;
  /** Distinct entries and signature bytes waiting now. */
  readonly size: { entries: number; signatureBytes: number };
}

const DEFAULTS = {
  flushMs: 5000,
  maxEntries: 20_000,
  maxEntriesPerKey: 2_000,
  maxSignatureBytes: 4_000_000,
  maxSignatures: 50_000,
  maxSignaturesPerKey: 5_000,
  retentionDays: 90,
  maxClientsPerKey: 20,
  onError: (_error: unknown) => undefined,
  onDropped: (_protocol: ShapeProtocol, _count: number) => undefined,
  now: () => new Date(),
};

/** Starts a recorder with its flush timer. */
export function createShapeRecorder(options: ShapeRecorderOptions): ShapeRecorder {
  const { port, instance, flushMs, maxEntries, maxEntriesPerKey, maxSignatureBytes, maxSignatures } = {
    ...DEFAULTS,
    ...options,
  };
  const { retentionDays, maxClientsPerKey, onError, onDropped, now, maxSignaturesPerKey } = {
    ...DEFAULTS,
    ...options,
  };
  const buffer = shapeBuffer({ maxEntries, maxEntriesPerKey, maxSignatureBytes, onDropped });
  const clientFor = clientTable(maxEntries, maxClientsPerKey);
  const dayOf = utcDays();
  let pendingFrom: string | undefined;
  let purgedOn: string | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async () => {
    const at = now();
    const today = dayOf(at.getTime());
    const taken = buffer.take();
    try {
      const days = daysBetween(pendingFrom ?? today, today);
      const refused = await port.add(
        taken.counts,
        { instance, at, days, dropped: taken.drops, signatures: taken.signatures },
        { max: maxSignatures, maxPerKey: maxSignaturesPerKey },
      );
      if (refused > 0) buffer.countDropped('graphql', refused);
      pendingFrom = today;
      if (purgedOn !== today) {
        await port.purge(dayOf(at.getTime() - (retentionDays - 1) * 86_400_000));
        purgedOn = today;
      }
    } catch (error) {
      onError(error);
      buffer.restore(taken);
    }
  };
  const enqueue = (work: () => Promise<void>) => {
    const next = writing.then(work);
    writing = next.catch(() => undefined);
    return next;
  };
  const flush = () => enqueue(write);
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    record(protocol, caller, shapes, signature) {
      const at = now();
      const apiKeyId = caller.apiKeyId ?? 0;
      const day = dayOf(at.getTime());
      const client = clientFor(apiKeyId, caller.client, day);
      for (const shape of shapes) {
        const isSignature = signature !== undefined && shape === `sig:${signature.hash}`;
        buffer.add(
          { protocol, shape, apiKeyId, client, day, count: 1, firstSeen: at, lastSeen: at },
          isSignature ? signature : undefined,
        );
      }
    },
    register: () =>
      enqueue(async () => {
        const at = now();
        await port.register({ instance, at });
        pendingFrom ??= dayOf(at.getTime());
      }),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    get dropped() {
      return buffer.dropped;
    },
    get size() {
      return buffer.size;
    },
  };
}

interface BufferLimits {
  maxEntries: number;
  maxEntriesPerKey: number;
  maxSignatureBytes: number;
  onDropped: (protocol: ShapeProtocol, count: number) => void;
}

/** The counts waiting for a flush, within the caps; what does not fit is counted per protocol and day. */
function shapeBuffer({ maxEntries, maxEntriesPerKey, maxSignatureBytes, onDropped }: BufferLimits) {
  let counts = new Map<string, ShapeCount>();
  let perKey = new Map<number, number>();
  let signatures = new Map<string, NewSignature>();
  let signatureBytes = 0;
  let drops = new Map<string, ShapeDrop>();
  let dropped = 0;

  const drop = (protocol: ShapeProtocol, day: string, count: number) => {
    addDrop(drops, { protocol, day, count });
    dropped += count;
    onDropped(protocol, count);
  };

  const add = (entry: ShapeCount, signature?: ShapeSignature) => {
    const id = `${entry.protocol}\u0000${entry.shape}\u0000${entry.apiKeyId}\u0000${entry.client}\u0000${entry.day}`;
    const existing = counts.get(id);
    if (existing) {
      existing.count += entry.count;
      if (entry.firstSeen < existing.firstSeen) existing.firstSeen = entry.firstSeen;
      if (entry.lastSeen > existing.lastSeen) existing.lastSeen = entry.lastSeen;
      return;
    }
    const keyEntries = perKey.get(entry.apiKeyId) ?? 0;
    const text = signature && !signatures.has(signature.hash) ? signature.signature : '';
    if (
      counts.size >= maxEntries ||
      keyEntries >= maxEntriesPerKey ||
      signatureBytes + text.length > maxSignatureBytes
    ) {
      drop(entry.protocol, entry.day, entry.count);
      return;
    }
    counts.set(id, { ...entry });
    perKey.set(entry.apiKeyId, keyEntries + 1);
    if (signature && text) {
      signatures.set(signature.hash, { ...signature, apiKeyId: entry.apiKeyId });
      signatureBytes += text.length;
    }
  };

  return {
    add,
    countDropped(protocol: ShapeProtocol, count: number) {
      dropped += count;
      onDropped(protocol, count);
    },
    take() {
      const taken = {
        counts: [...counts.values()],
        drops: [...drops.values()],
        signatures: [...signatures.values()],
      };
      counts = new Map();
      perKey = new Map();
      signatures = new Map();
      signatureBytes = 0;
      drops = new Map();
      return taken;
    },
    /** Puts back what a failed flush took, within the same caps. */
    restore(taken: { counts: ShapeCount[]; drops: ShapeDrop[]; signatures: NewSignature[] }) {
      const texts = new Map(taken.signatures.map((entry) => [entry.hash, entry]));
      for (const entry of taken.counts) add(entry, texts.get(entry.shape.slice('sig:'.length)));
      for (const entry of taken.drops) addDrop(drops, entry);
    },
    get dropped() {
      return dropped;
    },
    get size() {
      return { entries: counts.size, signatureBytes };
    },
  };
}

/** Adds dropped shapes to the count of their protocol and day. */
function addDrop(drops: Map<string, ShapeDrop>, { protocol, day, count }: ShapeDrop): void {
  const id = `${protocol}\u0000${day}`;
  const existing = drops.get(id);
  if (existing) existing.count += count;
  else drops.set(id, { protocol, day, count });
}
