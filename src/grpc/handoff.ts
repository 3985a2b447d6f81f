/**
 * A one-message handoff between a producer and a consumer that run apart: `put` waits until the message
 * is taken, so a slow reader holds the producer back instead of a queue growing.
 */

/** The two ends of a handoff. */
export interface Handoff<T> {
  /** Hands over one value; resolves true once taken, false when the consumer stopped. */
  put(value: T): Promise<boolean>;
  /** The next value, done once the producer ended; rejects with the producer's failure. */
  take(): Promise<IteratorResult<T, undefined>>;
  /** The producer has no more values. */
  end(): void;
  /** The producer failed: the consumer's next `take` rejects. */
  fail(error: unknown): void;
  /** The consumer takes no more: a waiting and every later `put` resolve false. */
  stop(): void;
}

/** Creates an empty handoff. */
export function createHandoff<T>(): Handoff<T> {
  let offered: { value: T; taken: (taken: boolean) => void } | undefined;
  let reader: { resolve: (next: IteratorResult<T, undefined>) => void; reject: (error: unknown) => void } | undefined;
  let ending: { error?: unknown } | undefined;
  let stopped = false;
  const settleReader = () => {
    if (!reader || !ending) return;
    const { resolve, reject } = reader;
    reader = undefined;
    if ('error' in ending) reject(ending.error);
    else resolve({ done: true, value: undefined });
  };
  return {
    put(value) {
      if (stopped) return Promise.resolve(false);
      if (reader) {
        const { resolve } = reader;
        reader = undefined;
        resolve({ done: false, value });
        return Promise.resolve(true);
      }
      return new Promise((taken) => {
        offered = { value, taken };
      });
    },
    take() {
      if (offered) {
        const { value, taken } = offered;
        offered = undefined;
        taken(true);
        return Promise.resolve({ done: false, value });
      }
      return new Promise((resolve, reject) => {
        reader = { resolve, reject };
        settleReader();
      });
    },
    end() {
      ending ??= {};
      settleReader();
    },
    fail(error) {
      ending ??= { error };
      settleReader();
    },
    stop() {
      stopped = true;
      offered?.taken(false);
      offered = undefined;
    },
  };
}
