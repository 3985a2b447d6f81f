/** Attempts in flight at once in one instance, unless the options say otherwise. */
const CONCURRENCY = 32;
/** Of them, at most this share to one endpoint (8 of 32), unless the options say otherwise. */
const PER_ENDPOINT_SHARE = 1 / 4;

/**
 * The attempt slots of a dispatcher: at most `concurrency` attempts in flight (default 32), at most
 * `perEndpoint` of them to one endpoint (default a quarter of them, at most all).
 */
export function createSlots({ concurrency, perEndpoint }: { concurrency?: number; perEndpoint?: number }) {
  const size = Math.max(1, concurrency ?? CONCURRENCY);
  const limit = Math.min(size, Math.max(1, perEndpoint ?? Math.floor(size * PER_ENDPOINT_SHARE)));
  const busy = new Map<number, number>();
  /** Endpoints at their limit after the last claim: it may have left some of their due deliveries behind. */
  let capped = new Set<number>();
  let inFlight = 0;
  return {
    /** Slots free now. */
    free: () => size - inFlight,
    /** Attempts in flight now. */
    inFlight: () => inFlight,
    /** What a claim may take of each endpoint (the store's `ClaimRoom`). */
    room: () => ({ perEndpoint: limit, busy: busy as ReadonlyMap<number, number> }),
    /** Takes a slot for each claimed delivery, by its endpoint. */
    take(endpointIds: readonly number[]) {
      for (const endpointId of endpointIds) {
        inFlight++;
        busy.set(endpointId, (busy.get(endpointId) ?? 0) + 1);
      }
      capped = new Set([...busy].filter(([, count]) => count >= limit).map(([endpointId]) => endpointId));
    },
    /** Gives an endpoint's slot back; true when the last claim left the endpoint at its limit. */
    give(endpointId: number): boolean {
      inFlight--;
      const left = (busy.get(endpointId) ?? 1) - 1;
      if (left > 0) busy.set(endpointId, left);
      else busy.delete(endpointId);
      return capped.has(endpointId);
    },
  };
}
