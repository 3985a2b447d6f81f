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
import type { ShapePort, ShapeProtocol, ShapeSignature } from '../../ports/index.js';
import { clientTable, flushLoop, utcDays } from '../../shared/index.js';
import { shapeBuffer } from './shape-buffer.js';

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
  let purgedOn: string | undefined;
  const purge = async (at: Date) => {
    const today = dayOf(at.getTime());
    if (purgedOn === today) return;
    await port.purge(dayOf(at.getTime() - (retentionDays - 1) * 86_400_000));
    purgedOn = today;
  };
  const loop = flushLoop(
    {
      take: buffer.take,
      restore: buffer.restore,
      async write(taken, { at, days }) {
        const limits = { max: maxSignatures, maxPerKey: maxSignaturesPerKey };
        const flush = { instance, at, days, dropped: taken.drops, signatures: taken.signatures };
        const refused = await port.add(taken.counts, flush, limits);
        if (refused > 0) buffer.countDropped('graphql', refused);
        // Written: a failed purge is told, never taken for a failed flush (that would count twice).
        await purge(at).catch(onError);
      },
      register: (at) => port.register({ instance, at }),
    },
    { flushMs, onError, now },
  );

  return {
    record(protocol, caller, shapes, signature) {
      const at = options.now ? options.now().getTime() : Date.now();
      const apiKeyId = caller.apiKeyId ?? 0;
      const day = dayOf(at);
      // One lookup per request for its caller's entries; then one per shape, by the shape alone.
      const group = buffer.group(protocol, apiKeyId, clientFor(apiKeyId, caller.client, day), day);
      const signed = signature && `sig:${signature.hash}`;
      for (const shape of shapes) buffer.add(group, shape, at, 1, shape === signed ? signature : undefined);
    },
    register: loop.register,
    flush: loop.flush,
    close: loop.close,
    get dropped() {
      return buffer.dropped();
    },
    get size() {
      return buffer.size();
    },
  };
}
