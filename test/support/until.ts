/**
 * Polls `find` every 25 ms until it gives a value (not undefined), and returns it; fails after `ms`.
 * For what arrives asynchronously in the end-to-end tests (a webhook delivery, a log entry).
 */
export async function until<T>(find: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
