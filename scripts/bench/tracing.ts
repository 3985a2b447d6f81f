import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuSeconds } from './cpu.js';
import type { Measured } from './load.js';
import { startBuilt, stopBuilt } from './startup.js';

/** An OTLP/HTTP endpoint that takes every export and keeps only counts: a collector that costs nothing. */
async function startOtlpSink() {
  const received = { exports: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      received.bytes += chunk.length;
    });
    request.on('end', () => {
      received.exports++;
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** One of the three servers of the tracing rows. */
export interface TracingSide {
  url: string;
  /**
   * A load run that also adds this server's CPU time and requests to `tally` (a machine shared with other
   * work shows it less in CPU per request than in throughput).
   */
  counted(run: () => Promise<Measured>, seconds: number, tally: CpuTally): () => Promise<Measured>;
}

/** CPU seconds a server spent and the requests it answered, summed over runs. */
export interface CpuTally {
  cpuSeconds: number;
  requests: number;
}

/** Microseconds of server CPU per request. */
export const microsPerRequest = ({ cpuSeconds, requests }: CpuTally) => (1e6 * cpuSeconds) / requests;

function sideOf(url: string, pid: number): TracingSide {
  return {
    url,
    counted: (run, seconds, tally) => async () => {
      const before = cpuSeconds(pid);
      const measured = await run();
      tally.cpuSeconds += cpuSeconds(pid) - before;
      tally.requests += measured.rps * seconds;
      return measured;
    },
  };
}

/** The servers of the tracing rows. */
export type TracingSides = Record<'bare' | 'off' | 'on' | 'tenth', TracingSide>;

/**
 * Runs `measure` against four built servers over the same database, each a process of its own: `bare`
 * without the --import entry at all, `off` with it and no OTLP endpoint (tracing off), `on` with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set (every request sampled, exported over OTLP http/protobuf, the
 * default) to a sink in this process, and `tenth` the same with a tenth of the traces sampled
 * (`parentbased_traceidratio`, 0.1). Returns what `measure` returns and what the sink received.
 */
export async function withTracingSides<T>(
  settings: Record<string, string>,
  measure: (sides: TracingSides) => Promise<T>,
): Promise<{ result: T; exports: number; exportedMiB: number }> {
  const sink = await startOtlpSink();
  const traced = { ...settings, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
  const started = {
    bare: await startBuilt(settings, ['dist/src/main.js']),
    off: await startBuilt(settings),
    on: await startBuilt(traced),
    tenth: await startBuilt({
      ...traced,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
  };
  try {
    const sides = Object.fromEntries(
      Object.entries(started).map(([name, { url, child }]) => [name, sideOf(url, child.pid as number)]),
    ) as TracingSides;
    const result = await measure(sides);
    return { result, exports: sink.received.exports, exportedMiB: sink.received.bytes / 2 ** 20 };
  } finally {
    await Promise.all(Object.values(started).map(({ child }) => stopBuilt(child)));
    await sink.close();
  }
}
