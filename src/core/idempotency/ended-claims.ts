import type { Store } from '../ports/index.js';

/** How often an ended claim is marked in the database while the database is away. */
const MARK_RETRY_MS = 1000;

/**
 * The claims of this instance whose request ended without an outcome: a retry here takes them over at
 * once, and each is marked ended in the database as soon as it answers, for retries on other instances.
 * An entry lasts one lease, after which any retry takes the key over anyway.
 */
export function createEndedClaims(store: Pick<Store, 'idempotency'>, leaseMs: number) {
  const ended = new Map<string, { scope: string; key: string; token: string; until: number }>();
  const id = (scope: string, key: string) => `${scope}\n${key}`;
  const mark = (entry: { scope: string; key: string; token: string; until: number }) => {
    store.idempotency.end(entry.scope, entry.key, entry.token).catch(() => {
      if (Date.now() + MARK_RETRY_MS < entry.until) setTimeout(() => mark(entry), MARK_RETRY_MS).unref();
    });
  };
  return {
    add(scope: string, key: string, token: string) {
      for (const [name, entry] of ended) if (entry.until <= Date.now()) ended.delete(name);
      const entry = { scope, key, token, until: Date.now() + leaseMs };
      ended.set(id(scope, key), entry);
      mark(entry);
    },
    tokenOf: (scope: string, key: string) => ended.get(id(scope, key))?.token,
    forget: (scope: string, key: string) => ended.delete(id(scope, key)),
  };
}
