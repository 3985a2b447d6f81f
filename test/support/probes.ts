/**
 * What the conformance tests provoke statuses with: a request shaped from an operation's valid one, and a
 * core whose every function fails (test/contracts/conformance*.test.ts).
 */
import type { Core } from '../../src/core/index.js';
import { type SeenResponse, see } from './contract.js';

/** A request as a provoker shapes it. */
export interface Attempt {
  path: string;
  query?: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends an attempt to the server at `base`; the URL as sent (for the contract check) and the answer. */
export async function sendAttempt(
  base: string,
  { path, query, method, headers, body }: Attempt,
): Promise<{ url: string; seen: SeenResponse }> {
  const url = `${path}${query ? `?${query}` : ''}`;
  const seen = await see(await fetch(new URL(url, base), { method, headers, ...(body ? { body } : {}) }));
  return { url, seen };
}

/**
 * While `run` runs, every function of the core throws `error`, but the key check that lets the request in:
 * what a failure under any operation looks like to the transport. The services are swapped on the core
 * object the handlers read at request time, not changed in place, and put back after.
 */
export async function withFailingCore<T>(core: Core, error: () => Error, run: () => Promise<T>): Promise<T> {
  const services = core as unknown as Record<string, unknown>;
  const originals = { ...services };
  const fail = () => {
    throw error();
  };
  for (const [name, service] of Object.entries(originals)) {
    if (typeof service === 'function') services[name] = fail;
    if (typeof service !== 'object' || service === null) continue;
    services[name] = new Proxy(service, {
      get: (target, member) => {
        const value = Reflect.get(target, member);
        const letIn = name === 'apiKeys' && member === 'authenticate';
        return typeof value === 'function' && !letIn ? fail : value;
      },
    });
  }
  try {
    return await run();
  } finally {
    Object.assign(services, originals);
  }
}
