import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** One load run: throughput and the 99th percentile latency. */
export interface Measured {
  rps: number;
  p99ms: number;
}

/**
 * A request wrk sends: `random-order` picks `/v1/orders/<1..100000>`; `new-product` POSTs `/v1/products` and
 * `new-product-graphql` the `createProduct` mutation (a random SKU each); `new-order` POSTs `/v1/orders` for a
 * random one of the data set's 1000 users, one unit of a random one of its 50 products, with no
 * Idempotency-Key (each request places a new order); a body makes it a POST.
 */
export interface HttpTarget {
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(tmpdir(), 'order-api-bench-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** Exits with a clear message when a load tool is missing. */
export function requireTools(...tools: string[]) {
  for (const tool of tools) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') {
        console.error(`${tool} is not installed (Debian: apt-get install wrk nghttp2-client).`);
        process.exit(2);
      }
    }
  }
}

const lua = (value: string) => JSON.stringify(value); // a JSON string is a valid Lua string literal here

/**
 * Loads `base` with wrk (2 threads) for `seconds`; asynchronous, so servers living in this process keep
 * serving. Fails on any non-2xx answer: a benchmark of errors measures nothing.
 */
export async function wrk(
  base: string,
  target: HttpTarget,
  { seconds, connections }: { seconds: number; connections: number },
) {
  const script = path.join(scratch, `wrk-${Math.random().toString(36).slice(2)}.lua`);
  const json = target.body !== undefined || target.path.startsWith('new-');
  const headers = Object.entries({ ...(json ? { 'content-type': 'application/json' } : {}), ...target.headers })
    .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
    .join(', ');
  writeFileSync(
    script,
    `math.randomseed(os.time())
local headers = { ${headers} }
local body = ${target.body ? lua(target.body) : 'nil'}
request = function()
  local target = ${lua(target.path)}
  if target == "random-order" then target = "/v1/orders/" .. math.random(1, 100000) end
  if target == "new-order" then
    return wrk.format("POST", "/v1/orders", headers, '{"userId":' .. math.random(1, 1000) ..
      ',"items":[{"productId":' .. math.random(1, 50) .. ',"quantity":1}]}')
  end
  if target == "new-product" or target == "new-product-graphql" then
    -- Each wrk thread seeds the same clock: a table's address and a count keep their SKUs apart.
    count = (count or 0) + 1
    salt = salt or tostring({}):match("0x(%x+)")
    local sku = "B" .. salt .. "-" .. count .. "-" .. math.random(1, 1000000000)
    local product = '{"name":"Bench product","sku":"' .. sku .. '","price":19.5,"stock":10}'
    if target == "new-product" then return wrk.format("POST", "/v1/products", headers, product) end
    return wrk.format("POST", "/graphql", headers,
      '{"query":"mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }","variables":{"input":' .. product .. '}}')
  end
  return wrk.format(body and "POST" or "GET", target, headers, body)
end
`,
  );
  const { stdout } = await run('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, base], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
  const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : Number.NaN;
  if (!(rps > 0)) throw new Error(`wrk reported no throughput:\n${stdout}`);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  if (errors) throw new Error(`${base}${target.path}: ${errors} non-2xx responses`);
  return { rps, p99ms } satisfies Measured;
}

/** A unary gRPC request frame: no compression flag, 4-byte big-endian length, the message. */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * Loads one unary gRPC method with h2load (4 connections × 16 streams, as the issue measured). h2load
 * counts a gRPC error (HTTP 200 with a grpc-status trailer) as a success, so the caller checks one call
 * with a real client first. The p99 comes from h2load's per-request log.
 */
export async function h2load(
  base: string,
  method: string,
  message: Uint8Array,
  {
    seconds,
    connections = 4,
    streams = 16,
    warmUpSeconds = 1,
  }: { seconds: number; connections?: number; streams?: number; warmUpSeconds?: number },
) {
  const body = path.join(scratch, `grpc-${Math.random().toString(36).slice(2)}.bin`);
  const log = `${body}.log`;
  writeFileSync(body, grpcFrame(message));
  const { stdout } = await run(
    'h2load',
    [
      `-c${connections}`,
      `-m${streams}`,
      `-D${seconds}`,
      ...(warmUpSeconds > 0 ? [`--warm-up-time=${warmUpSeconds}`] : []),
      '-d',
      body,
      '--log-file',
      log,
      '-H',
      'content-type: application/grpc',
      '-H',
      'te: trailers',
      `${base}/${method}`,
    ],
    { encoding: 'utf8' },
  );
  const rps = Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(stdout)?.[1]);
  const failed = Number(/(\d+) failed/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(
    /(\d+) 4xx, (\d+) 5xx/
      .exec(stdout)
      ?.slice(1)
      .reduce((sum, n) => sum + Number(n), 0) ?? 0,
  );
  if (!(rps > 0) || failed > 0 || non2xx > 0) throw new Error(`h2load: ${rps} req/s, ${failed} failed:\n${stdout}`);
  // Log lines: start (µs since start), HTTP status, time to response end (µs).
  const latencies = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => Number(line.split('\t')[2]))
    .sort((a, b) => a - b);
  const p99ms = (latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN) / 1000;
  return { rps, p99ms } satisfies Measured;
}

/** The order of one round of `alternate`: baseline, ours, ours, baseline. */
const ABBA = ['baseline', 'ours', 'ours', 'baseline'] as const;

/**
 * Measures `ours` against `baseline` in alternating order (by default baseline, ours, ours, baseline),
 * `rounds` times, so a drift in the machine's load over the run hits both sides alike. Returns each side's
 * mean throughput and the median of its runs' p99s: one run's p99 on this shared machine can move by a
 * fifth when a neighbour wakes up, and the median of four runs is not carried by one such run (with one
 * round, the median of two is their mean).
 */
export async function alternate(
  baseline: () => Promise<Measured>,
  ours: () => Promise<Measured>,
  rounds = 1,
  order: ReadonlyArray<'baseline' | 'ours'> = ABBA,
) {
  const sides = { baseline: [] as Measured[], ours: [] as Measured[] };
  for (let round = 0; round < rounds; round++)
    for (const side of order) sides[side].push(await (side === 'baseline' ? baseline() : ours()));
  const summary = (runs: Measured[]) => ({
    rps: runs.reduce((sum, m) => sum + m.rps, 0) / runs.length,
    p99ms: median(runs.map((m) => m.p99ms)),
  });
  return { baseline: summary(sides.baseline), ours: summary(sides.ours) };
}

/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
