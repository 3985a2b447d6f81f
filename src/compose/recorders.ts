/**
 * The two usage records the composition root starts, each with its own buffer and heartbeats: deprecation
 * usage (the retirement evidence) and the request-shape record (docs/decisions.md §13, read by impact
 * analysis). Both flush every USAGE_FLUSH_MS; each instance is registered before it serves.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { WEBHOOK_CLIENT } from '../core/lifecycle/event-deprecations.js';
import { createShapeRecorder, type ShapeRecorder } from '../core/lifecycle/shapes/shape-recorder.js';
import { createUsageRecorder, type UsageRecorder } from '../core/lifecycle/usage/usage-recorder.js';
import type { ShapePort } from '../core/ports/shapes.js';
import type { UsagePort } from '../core/ports/usage.js';
import type { Metrics } from '../observability/metrics.js';
import { restShapes } from '../rest/request-shapes.js';
import type { DispatcherOptions } from '../webhooks/dispatcher.js';

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

/**
 * What each accepted webhook delivery records in the request-shape record: its webhook and the payload members
 * it carried, named as REST names them (src/rest/request-shapes.ts), for the endpoint's key with the client
 * `webhooks`; so removing a payload member names the owners of the endpoints that receive it.
 */
export async function webhookShapes(
  shapes: ShapeRecorder | undefined,
  projectRoot: string,
): Promise<DispatcherOptions['onAccepted']> {
  if (!shapes) return undefined;
  const file = path.join(projectRoot, 'generated/contracts/openapi.json');
  const names = restShapes(JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>);
  return (delivery, envelope) =>
    shapes.record(
      'rest',
      { apiKeyId: delivery.endpoint.apiKeyId, client: WEBHOOK_CLIENT },
      names.ofDelivery(envelope.type, envelope),
    );
}
