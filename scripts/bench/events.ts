import pg from 'pg';
import { BENCH_APPLICATION, cpuTally } from './cpu.js';
import { type Call, deliveryLatency } from './events-latency.js';
import { type Measured, wrk } from './load.js';
import { drainDeliveries, startReceiver } from './receiver.js';
import { scratchDataSet } from './scratch.js';
import { startBuilt, stopBuilt } from './startup.js';

type Sides = { baseline: Measured; ours: Measured };

/** How the events section runs: the load settings and run.ts's alternation. */
export interface EventsBench {
  url: string;
  quick: boolean;
  seconds: number;
  connections: number;
  compare: (baseline: () => Promise<Measured>, ours: () => Promise<Measured>, rounds?: number) => Promise<Sides>;
  warm: (...runs: Array<() => Promise<Measured>>) => Promise<void>;
}

/** The endpoints subscribed to `order.created` during the write rows' "endpoints enabled" side. */
const ENDPOINTS = 3;
/**
 * The tables the write rows grow, analyzed after each row's warm-up as autovacuum would have by then. The
 * bench machine's PostgreSQL runs without autovacuum (a CI setting), so nothing else does: a foreign-key
 * check of a delivery row, planned by a connection while `events` was nearly empty (a sequential scan,
 * right for a page or two), stays with that connection and reads the whole table for every row it checks.
 */
const ANALYZE = 'ANALYZE events, webhook_deliveries, webhook_attempts, orders, order_items, reservations, stock';

/** CPU seconds by process and the orders placed, summed over one side's runs. */
type Tally = { cpu: Record<string, number>; orders: number };
const newTally = (): Tally => ({ cpu: {}, orders: 0 });

/** Microseconds of CPU per unit (order or delivery) of each process, and in all. */
function per(cpu: Record<string, number>, units: number): Record<string, number> {
  const micros = Object.fromEntries(Object.entries(cpu).map(([name, s]) => [name, (1e6 * s) / units]));
  return { ...micros, all: Object.values(micros).reduce((sum, value) => sum + value, 0) };
}
const list = (values: Record<string, number>) =>
  Object.entries(values)
    .map(([name, value]) => `${name} ${value.toFixed(0)}`)
    .join(', ');

/**
 * The events rows, on a data set of their own (the write rows add orders, which the read rows must not
 * see). Each server is the built one in a process of its own (as `npm start` runs it, with
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` so that endpoints on loopback are accepted), the receiver another
 * (./receiver.ts), wrk a third; CPU time is read from /proc for the servers, the receiver and the
 * database's backends (when PostgreSQL runs on this machine). Both rows post `POST /v1/orders` with 3
 * endpoints subscribed to `order.created` against the same server with them disabled (events are written
 * on both sides; the delivery rows and their delivery differ):
 *
 * 1. the outbox on the write path: an instance with `WEBHOOK_DISPATCH=false` queues the deliveries in the
 *    order's transaction and sends none (a dispatcher instance sends them, elsewhere in a deployment; here
 *    after the row, and its drain gives the CPU a delivery costs);
 * 2. the same instance delivering while it serves the load (the default), its backlog drained after each run.
 *
 * Then the delivery latency at a steady rate, through a dispatcher instance and within one instance.
 */
export async function benchEvents(bench: EventsBench) {
  const scratch = await scratchDataSet(bench.url, 'bench_events');
  const settings = scratch.settings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const receiver = await startReceiver();
  const pool = new pg.Pool({
    connectionString: bench.url,
    max: 2,
    options: `-c search_path=${scratch.schema}`,
    application_name: BENCH_APPLICATION,
  });
  const headers = { authorization: `Bearer ${scratch.adminKey}`, 'content-type': 'application/json' };
  const call: Call = async (base, method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? { id: '' } : ((await response.json()) as { id: string | number });
  };
  const api = await startBuilt({ ...settings, WEBHOOK_DISPATCH: 'false' });
  // The dispatcher instance starts now (its start-up is not a delivery's cost) and is held (SIGSTOP) until
  // the first row has queued its deliveries.
  const dispatcher = await startBuilt(settings);
  const dispatcherPid = dispatcher.child.pid as number;
  process.kill(dispatcherPid, 'SIGSTOP');
  let held = true;
  const notes: string[] = [];
  try {
    const hooks = await Promise.all(
      Array.from({ length: ENDPOINTS }, (_, n) =>
        call(api.url, 'POST', '/v1/webhook-endpoints', {
          url: `${receiver.base}/load-${n}`,
          events: ['order.created'],
        }),
      ),
    );
    const enable = (base: string, on: boolean) =>
      Promise.all(hooks.map(({ id }) => call(base, 'PATCH', `/v1/webhook-endpoints/${id}`, { disabled: !on })));
    const row = writeRow(bench, { pool, receiver, enable, authorization: headers.authorization });

    const queued = await row(api, false);
    await enable(api.url, false);
    notes.push(
      await drainNote(dispatcherPid, receiver, pool, () => {
        process.kill(dispatcherPid, 'SIGCONT');
        held = false;
      }),
    );
    notes.push(
      await deliveryLatency('API instance → dispatcher instance', bench.quick ? 2 : 10, api.url, receiver, call),
    );
    await stopBuilt(api.child);

    const delivered = await row(dispatcher, true);
    const seen = await receiver.arrivals();
    notes.push(`events: the receiver took ${seen.requests} deliveries over ${seen.connections} connections in all`);
    notes.push(await deliveryLatency('within one instance', bench.quick ? 2 : 10, dispatcher.url, receiver, call));
    return { rows: [queued.row, delivered.row], notes: [...queued.notes, ...delivered.notes, ...notes] };
  } finally {
    if (held) process.kill(dispatcherPid, 'SIGCONT'); // a held process would not act on SIGTERM
    if (api.child.exitCode === null) await stopBuilt(api.child);
    await stopBuilt(dispatcher.child);
    await receiver.close();
    await pool.end();
    await scratch.drop();
  }
}

/** The write row on one server: endpoints disabled against enabled, with the CPU each side costs per order. */
function writeRow(
  bench: EventsBench,
  {
    pool,
    receiver,
    enable,
    authorization,
  }: {
    pool: pg.Pool;
    receiver: Awaited<ReturnType<typeof startReceiver>>;
    enable: (base: string, on: boolean) => Promise<unknown>;
    authorization: string;
  },
) {
  return async (server: Awaited<ReturnType<typeof startBuilt>>, dispatching: boolean) => {
    const tallies = { off: newTally(), on: newTally() };
    let drainMs = 0;
    /** A delivering side's throughput over the load alone, its backlog left out. */
    let loadOnly: number[] = [];
    /**
     * A run of one side, its CPU added to the side's tally. A delivering side's backlog is drained within
     * its run (so that it does not load the next), and counts: its throughput is the orders it placed and
     * delivered a second, over the load and the drain.
     */
    const counted = (side: 'off' | 'on', run: () => Promise<Measured>) => async () => {
      const tally = await cpuTally({ server: server.child.pid as number, receiver: receiver.pid }, pool);
      await enable(server.url, side === 'on');
      const measured = await run();
      const drained = side === 'on' && dispatching ? await drainDeliveries(pool) : 0;
      drainMs = Math.max(drainMs, drained);
      for (const [name, seconds] of Object.entries(await tally.since()))
        tallies[side].cpu[name] = (tallies[side].cpu[name] ?? 0) + seconds;
      tallies[side].orders += measured.rps * bench.seconds;
      if (!(side === 'on' && dispatching)) return measured;
      loadOnly.push(measured.rps);
      return { ...measured, rps: (measured.rps * bench.seconds) / (bench.seconds + drained / 1000) };
    };
    const write = () =>
      wrk(
        server.url,
        { path: 'new-order', headers: { authorization } },
        { seconds: bench.seconds, connections: bench.connections },
      );
    const off = counted('off', write);
    const on = counted('on', write);
    await write(); // the first load warms the server up, in a quick run too
    await bench.warm(off, on);
    await pool.query(ANALYZE);
    tallies.off = newTally();
    tallies.on = newTally();
    loadOnly = [];
    const measured = await bench.compare(off, on, dispatching ? 1 : 2);
    const loadRatio = loadOnly.reduce((sum, rps) => sum + rps, 0) / loadOnly.length / measured.baseline.rps;
    const offCpu = per(tallies.off.cpu, tallies.off.orders);
    const onCpu = per(tallies.on.cpu, tallies.on.orders);
    const extra = ((onCpu.all ?? 0) - (offCpu.all ?? 0)) / ENDPOINTS;
    const bound = (offCpu.all ?? 0) / (onCpu.all ?? Number.NaN);
    const what = dispatching ? 'delivered by the same instance' : 'deliveries queued (WEBHOOK_DISPATCH=false)';
    const cpu = `CPU µs per order with the endpoints disabled: ${list(offCpu)}; enabled: ${list(onCpu)}`;
    const notes = [`events (${what}): ${cpu}; ${extra.toFixed(0)} µs more per delivery`];
    if (dispatching)
      notes.push(
        `events (${what}): over the load alone, before up to ${Math.round(drainMs)} ms of deliveries left after a ${bench.seconds} s run were drained, enabled ÷ disabled = ${loadRatio.toFixed(2)}`,
      );
    const row = {
      label: `REST POST /v1/orders, ${ENDPOINTS} webhook endpoints, ${dispatching ? `${what} (orders placed and delivered a second)` : what}`,
      baseline: 'the same endpoints disabled',
      measured,
      target: 0.95,
      ...(dispatching
        ? {
            ceiling: `the server, the receiver and PostgreSQL share this machine's 2 cores, and the ${ENDPOINTS} deliveries add ${(100 * ((onCpu.all ?? 0) / (offCpu.all ?? 1) - 1)).toFixed(0)} % to an order's CPU (${cpu}): where CPU alone limits, the ratio is at most ${bound.toFixed(2)}`,
          }
        : {}),
    };
    return { row, notes };
  };
}

/**
 * Measures the held dispatcher instance `pid`, released by `release`, sending the deliveries queued so far
 * (the first row's enabled runs), and returns the line of its rate and CPU per delivery (it, the receiver,
 * PostgreSQL).
 */
async function drainNote(
  pid: number,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  pool: pg.Pool,
  release: () => void,
) {
  const { rows } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
  );
  const pending = rows[0]?.n ?? 0;
  const tally = await cpuTally({ dispatcher: pid, receiver: receiver.pid }, pool);
  release();
  const ms = await drainDeliveries(pool);
  const cpu = per(await tally.since(), pending);
  return `events: a dispatcher instance (the default settings, no other load) sent the ${pending} queued deliveries in ${(ms / 1000).toFixed(1)} s (${((1000 * pending) / ms).toFixed(0)} a second); CPU µs per delivery: ${list(cpu)}`;
}
