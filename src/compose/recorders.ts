/**
 * The two usage records the composition root starts, each with its own buffer and heartbeats: deprecation
 * usage (the retirement evidence) and the request-shape record (docs/decisions.md §13, read by impact
 * analysis). Both flush every USAGE_FLUSH_MS; each instance is registered before it serves.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ShapePort } from '../core/ports/shapes.js';
import type { UsagePort } from '../core/ports/usage.js';
import { createShapeRecorder, type ShapeRecorder } from '../core/shape-recorder.js';
import { createUsageRecorder, type UsageRecorder } from '../core/usage-recorder.js';
import type { Metrics } from '../observability/metrics.js';

/** Starts the recorder (undefined when SHAPES_RECORD is off). */
export async function startShapeRecorder(
  port: ShapePort,
  config: Config,
  logger: Logger,
  metrics: Metrics,
  now?: () => Date,
): Promise<ShapeRecorder | undefined> {
  if (!config.SHAPES_RECORD) return undefined;
  const recorder = createShapeRecorder({
    port,
    instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    flushMs: config.USAGE_FLUSH_MS,
    maxEntries: config.SHAPES_MAX_ENTRIES,
    maxEntriesPerKey: config.SHAPES_MAX_ENTRIES_PER_KEY,
    maxSignatures: config.SHAPES_MAX_SIGNATURES,
    maxSignaturesPerKey: config.SHAPES_MAX_SIGNATURES_PER_KEY,
    retentionDays: config.SHAPES_RETENTION_DAYS,
    onError: (error) => logger.warn({ err: error }, 'request-shape flush failed; kept for the next one'),
    onDropped: (protocol, count) => metrics.requestShapesDropped.inc({ protocol }, count),
    ...(now ? { now } : {}),
  });
  await recorder.register();
  return recorder;
}

/** The last flush, on shutdown; a failure is logged. */
export async function closeShapeRecorder(recorder: ShapeRecorder | undefined, logger: Logger): Promise<void> {
  await recorder?.close().catch((error: unknown) => logger.warn({ err: error }, 'last request-shape flush failed'));
}

/**
 * Uses of deprecated and watched items, written every USAGE_FLUSH_MS off the request path; the instance is
 * registered before it serves, so a day it serves counts as measured only once it has flushed for that day.
 */
export async function startRecorder(
  usage: UsagePort,
  config: Config,
  logger: Logger,
  metrics: Metrics,
  now?: () => Date,
) {
  const recorder = createUsageRecorder({
    port: usage,
    instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    flushMs: config.USAGE_FLUSH_MS,
    maxEntries: config.USAGE_MAX_ENTRIES,
    onError: (error) => logger.warn({ err: error }, 'usage flush failed; kept for the next one'),
    onDropped: ({ item, count }) => metrics.deprecationUsageDropped.inc({ item }, count),
    ...(now ? { now } : {}),
  });
  await recorder.register();
  return recorder;
}

export async function closeRecorder(recorder: UsageRecorder, logger: Logger): Promise<void> {
  await recorder.close().catch((error: unknown) => logger.warn({ err: error }, 'last usage flush failed'));
}
