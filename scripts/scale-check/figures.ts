import type { Attempt, Placement } from './load.js';

/** The 99th percentile of the latencies of the attempts that started in [from, to), in ms. */
export function p99(attempts: Attempt[], from: number, to: number): number {
  const latencies = attempts
    .filter((attempt) => attempt.start >= from && attempt.start < to && attempt.end > 0)
    .map((attempt) => attempt.end - attempt.start)
    .sort((a, b) => a - b);
  return latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Number.NaN;
}

/** An attempt that failed: no answer, a 5xx, or a gRPC code other than OK. 409/429 are answers to retry. */
export const failed = (attempt: Attempt) =>
  attempt.error !== undefined ||
  (typeof attempt.status === 'number'
    ? attempt.status >= 500
    : attempt.status !== undefined && attempt.status !== 'OK');

/** How long HAProxy takes to mark a dead instance down: `fall 2` checks `inter 1s` apart, and one more. */
export const DETECTION_MS = 3000;

/**
 * Splits the failures: those of the killed instance's in-flight set may fail — requests it held when it
 * died (started before the SIGKILL, ended after it) and requests the balancer handed it before its checks
 * marked it down (started within DETECTION_MS after), answered by it or by no instance at all. Any other
 * may not.
 */
export function classifyFailures(attempts: Attempt[], killed: { name: string; at: number }) {
  const failures = attempts.filter(failed);
  const inFlightOnKilled = (attempt: Attempt) =>
    attempt.start <= killed.at + DETECTION_MS &&
    attempt.end >= killed.at &&
    (attempt.servedBy === undefined || attempt.servedBy === killed.name);
  return {
    inKilledSet: failures.filter(inFlightOnKilled),
    outside: failures.filter((attempt) => !inFlightOnKilled(attempt)),
  };
}

/** Placements that needed more than one attempt, and how many of them ended with their order. */
export function retriedPlacements(placements: Placement[]) {
  const retried = placements.filter((placement) => placement.attempts > 1);
  return {
    retried: retried.length,
    gotTheirOrder: retried.filter((placement) => placement.orderId !== undefined).length,
  };
}

/** One line of the report: a figure and whether its rule holds (`undefined`: a measurement, no rule). */
export function line(label: string, value: string, holds?: boolean): string {
  const mark = holds === undefined ? ' ' : holds ? '✓' : '✗';
  return `${mark} ${label.padEnd(58)} ${value}`;
}
