/**
 * Cluster mode (`WORKERS`): a primary process that prepares the database once, forks the workers that
 * serve (node:cluster shares both ports among them), replaces a worker that dies, and on SIGTERM/SIGINT
 * passes the signal on and exits once every worker has drained.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { DRAIN_LIMIT_MS } from './compose/server.js';

/** What a worker sends the primary once both of its ports listen. */
const SERVING = 'order-api:serving';

/** The primary waits this long for its workers' drain (each forces its own exit after DRAIN_LIMIT_MS). */
const CLUSTER_DRAIN_LIMIT_MS = DRAIN_LIMIT_MS + 2000;

/** Whether this process is a worker of cluster mode (it serves as a single process would). */
export const isClusterWorker = () => cluster.isWorker;

/** Tells the primary that this worker serves (nothing outside cluster mode). */
export function announceServing(): void {
  if (cluster.isWorker) process.send?.(SERVING);
}

/**
 * Runs the primary: `prepare` (migrations, first-start keys) once, then `workers` processes. A worker that
 * exits before it serves stops the cluster (exit 1: a bad start would fail again in a loop); one that dies
 * after is replaced.
 */
export async function runPrimary(workers: number, logger: Logger, prepare: () => Promise<void>): Promise<void> {
  const serving = new Set<number>();
  let stopping = false;
  let exitCode = 0;
  const stop = (signal: NodeJS.Signals, code: number) => {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'draining the workers');
    setTimeout(() => {
      logger.error(`the workers took longer than ${CLUSTER_DRAIN_LIMIT_MS / 1000} s to drain; exiting`);
      process.exit(1);
    }, CLUSTER_DRAIN_LIMIT_MS).unref();
    for (const worker of liveWorkers()) worker.process.kill(signal);
    exitWhenNoWorkers(exitCode);
  };
  // The handlers go in before anything is awaited, so that a signal during the preparation stops the start.
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  await prepare();

  cluster.on('message', (worker, message) => {
    if (message !== SERVING) return;
    serving.add(worker.id);
    if (serving.size === workers) logger.info({ workers }, 'cluster serving');
  });
  cluster.on('exit', (worker, code, signal) => {
    const started = serving.delete(worker.id);
    if (stopping) {
      if (code !== 0) exitCode = 1; // a worker whose drain was cut short
      return exitWhenNoWorkers(exitCode);
    }
    if (!started) {
      logger.error({ pid: worker.process.pid, code, signal }, 'a worker failed to start; stopping the cluster');
      return stop('SIGTERM', 1);
    }
    logger.warn({ pid: worker.process.pid, code, signal }, 'a worker died; starting a replacement');
    cluster.fork();
  });
  for (let index = 0; index < workers; index++) cluster.fork();
  logger.info({ workers }, 'cluster primary started');
}

function liveWorkers(): Worker[] {
  return Object.values(cluster.workers ?? {}).filter(
    (worker): worker is Worker => worker !== undefined && !worker.isDead(),
  );
}

function exitWhenNoWorkers(code: number): void {
  if (liveWorkers().length === 0) process.exit(code);
}
