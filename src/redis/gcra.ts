/**
 * The generic cell rate algorithm (GCRA), the token bucket of redis-cell, throttled and Stripe's limiter
 * in its one-number form: a budget of `quota` points refills continuously at `quota / window` points per
 * millisecond, and a caller's whole state is its theoretical arrival time (TAT), the moment its budget
 * would be full again. Charging `points` moves the TAT forward by `points` emission intervals; a charge
 * that would move it more than one window past now is refused and moves nothing.
 *
 * The same arithmetic exists twice, kept side by side so that they stay one rule: `chargeCell` for the
 * in-memory store, and `GCRA_LUA` for Redis, where it runs atomically on the server's own clock (so
 * instances with skewed clocks still share one budget).
 */

/** One charge's outcome, in whole units as both stores report them. */
export interface CellCharge {
  allowed: boolean;
  /** Points left after this charge (whole points; what is refilling counts once complete). */
  remaining: number;
  /** Milliseconds until the budget is full again. */
  fullInMs: number;
  /** Refused only: milliseconds until this charge would be allowed (0 when allowed). */
  retryInMs: number;
  /** The caller's new theoretical arrival time (unchanged when refused). */
  tat: number;
}

// Floating-point slack: 1000 points in 60 000 ms is an emission interval of 60 ms exactly, but sums of
// other intervals can land a hair under a whole point.
const EPSILON = 1e-9;

/** Charges `points` to a budget whose state is `tat` (undefined: never charged, full) at time `now`. */
export function chargeCell(tat: number | undefined, now: number, points: number, quota: number, windowMs: number) {
  const interval = windowMs / quota;
  const start = Math.max(tat ?? now, now);
  const next = start + points * interval;
  const allowed = next - now <= windowMs + EPSILON;
  const held = allowed ? next : start;
  const charge: CellCharge = {
    allowed,
    remaining: Math.max(0, Math.floor((windowMs - (held - now)) / interval + EPSILON)),
    fullInMs: Math.ceil(held - now),
    // A charge larger than the whole budget can never pass: it is told to wait one full window.
    retryInMs: allowed ? 0 : points > quota ? windowMs : Math.ceil(next - windowMs - now),
    tat: held,
  };
  return charge;
}

/**
 * `chargeCell` as a Redis script: KEYS[1] the caller's key; ARGV points, quota, window in ms. Returns
 * `{allowed (0|1), remaining, fullInMs, retryInMs}` as integers (Redis truncates Lua numbers). The TAT is
 * stored with millisecond fractions and expires when the budget is full again, so idle callers cost no
 * memory. `TIME` inside a script is allowed since Redis 5 (effects replication).
 */
export const GCRA_LUA = `
local points = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local interval = window / quota
local start = tonumber(redis.call('GET', KEYS[1]) or '0')
if start < now then start = now end
local nextTat = start + points * interval
local allowed = 0
local held = start
if nextTat - now <= window + 1e-9 then
  allowed = 1
  held = nextTat
  redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.max(1, math.ceil(nextTat - now)))
end
local remaining = math.max(0, math.floor((window - (held - now)) / interval + 1e-9))
local retry = 0
if allowed == 0 then
  if points > quota then retry = window else retry = math.ceil(nextTat - window - now) end
end
return {allowed, remaining, math.ceil(held - now), retry}
`;
