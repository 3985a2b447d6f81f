import type { AttemptRecord, WebhookStore } from '../core/ports/index.js';

/** Outcomes recorded in one statement at most. */
const MAX_BATCH = 200;

/**
 * Records attempt outcomes in batches (a group commit): the outcomes that end while a batch is being
 * written go together into the next one, and those that end in the same turn of the event loop into the
 * same one, so that under load a statement records many outcomes and an idle dispatcher waits for none.
 * A batch that fails is reported once; its deliveries stay leased and are tried again when the lease ends.
 */
export function createRecorder(store: Pick<WebhookStore, 'recordAll'>, onError: (error: unknown) => void) {
  let queue: Array<{ record: AttemptRecord; done: () => void }> = [];
  let flushing: Promise<void> | undefined;
  let running = false;

  const flush = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        await store.recordAll(batch.map((entry) => entry.record));
      } catch (error) {
        onError(error);
      }
      for (const entry of batch) entry.done();
    }
    running = false; // in the same turn as the empty queue was seen: a record pushed after it starts a flush
  };

  return {
    /** Resolves once the outcome is written (or its batch failed, which was reported). */
    record(record: AttemptRecord): Promise<void> {
      const written = new Promise<void>((done) => queue.push({ record, done }));
      if (!running) {
        running = true;
        flushing = flush();
      }
      return written;
    },
    /** Resolves when nothing is left to write. */
    flushed: (): Promise<void> => (running && flushing ? flushing : Promise.resolve()),
  };
}
