import { setTimeout as sleep } from 'node:timers/promises';
import { type startReceiver, wallClock } from './receiver.js';

/** Orders a second during a delivery latency run: steady and moderate, far below the write rows' rate. */
export const RATE = 20;

/** Calls the API of one server as the admin; fails on an answer that is not 2xx. */
export type Call = (base: string, method: string, path: string, body?: unknown) => Promise<{ id: string | number }>;

/** The value below which `share` of the sorted `values` lie. */
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;

/**
 * Places `RATE` orders a second for `seconds` on the server at `placeUrl` (each its own request, not
 * waiting for the previous one) with one endpoint on the receiver's `/latency` (deleted at the end), and
 * returns the line of the delivery latency: from the 201's arrival at the bench to the delivery's arrival
 * at the receiver (each process's wall clock with sub-millisecond resolution), p50 and p99; beside it the
 * event's `createdAt` (the transaction's `now()`) → arrival, which also counts the transaction. An order
 * the server refuses is counted in the line, not timed.
 */
export async function deliveryLatency(
  label: string,
  seconds: number,
  placeUrl: string,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  call: Call,
) {
  const hook = await call(placeUrl, 'POST', '/v1/webhook-endpoints', {
    url: `${receiver.base}/latency`,
    events: ['order.created'],
  });
  const committed = new Map<string, number>();
  /** Orders the server refused (a 504 when the machine is too loaded to place one in 2 s), counted, not timed. */
  const failures: string[] = [];
  const placed: Promise<void>[] = [];
  const count = seconds * RATE;
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const wait = started + (n * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const body = { userId: 1 + (n % 1000), items: [{ productId: 1 + (n % 50), quantity: 1 }] };
    placed.push(
      call(placeUrl, 'POST', '/v1/orders', body).then(
        ({ id }) => void committed.set(String(id), wallClock()),
        (error: Error) => void failures.push(error.message.slice(0, 120)),
      ),
    );
  }
  await Promise.all(placed);
  const deadline = performance.now() + 30_000;
  let arrivals = await receiver.arrivals();
  while ([...committed.keys()].some((id) => !arrivals.has(id)) && performance.now() < deadline) {
    await sleep(50);
    arrivals = await receiver.arrivals();
  }
  await call(placeUrl, 'DELETE', `/v1/webhook-endpoints/${hook.id}`);
  const fromCommit: number[] = [];
  const fromCreatedAt: number[] = [];
  for (const [id, at] of committed) {
    const arrival = arrivals.get(id);
    if (!arrival) continue;
    fromCommit.push(arrival.at - at);
    fromCreatedAt.push(arrival.at - Date.parse(arrival.createdAt));
  }
  fromCommit.sort((a, b) => a - b);
  fromCreatedAt.sort((a, b) => a - b);
  const ms = (value: number) => value.toFixed(1);
  const refusals = failures.length > 0 ? ` (first refusal: ${failures[0]})` : '';
  return `events: delivery latency, ${label}, at ${RATE} orders/s for ${seconds} s, ${committed.size} of ${count} placed${refusals}, ${fromCommit.length} of them delivered: 201 → receiver p50 ${ms(percentile(fromCommit, 0.5))} ms, p99 ${ms(percentile(fromCommit, 0.99))} ms; event createdAt → receiver p50 ${ms(percentile(fromCreatedAt, 0.5))} ms, p99 ${ms(percentile(fromCreatedAt, 0.99))} ms`;
}
