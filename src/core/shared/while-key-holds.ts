/**
 * Authorization that holds while a stream delivers, not only when it opens: the caller's key is re-checked
 * before every item and every `recheckMs` between them, and once it expired, was revoked or was rotated out
 * the stream ends with UNAUTHENTICATED. GraphQL's `orderUpdated` and gRPC's `WatchStock` both run it.
 */
import { type Caller, unauthenticated } from './caller.js';

/** Whether a caller authenticated earlier may still receive data (the key check's `stillValid`). */
export type StillValid = (caller: Caller) => Promise<boolean>;

/**
 * The items `open` yields for as long as the caller's key holds. `open` is given a signal that aborts when
 * `signal` does or when the key is found to no longer hold, so that what it waits on ends at once. A check
 * that fails (the database is unreachable) keeps the stream: the next one decides.
 */
export function whileKeyHolds<T>(
  caller: Caller,
  stillValid: StillValid,
  signal: AbortSignal,
  open: (signal: AbortSignal) => AsyncIterable<T>,
  recheckMs = 1000,
): AsyncGenerator<T> {
  const lost = new AbortController();
  const check = async () => {
    if (!lost.signal.aborted && !(await stillValid(caller).catch(() => true))) lost.abort();
  };
  const ticker = setInterval(() => void check(), recheckMs);
  // Cleared here too when the stream is never iterated.
  signal.addEventListener('abort', () => clearInterval(ticker), { once: true });
  const source = open(AbortSignal.any([signal, lost.signal]));
  return (async function* () {
    try {
      for await (const item of source) {
        await check();
        if (lost.signal.aborted) break;
        yield item;
      }
      if (lost.signal.aborted) throw unauthenticated.ended();
    } finally {
      clearInterval(ticker);
    }
  })();
}
