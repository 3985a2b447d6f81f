import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** Origins (with their checked address) whose connections are kept, the least recently used dropped first. */
const AGENTS_KEPT = 64;
/**
 * How long an idle connection is kept: below the 5 s after which Node's own HTTP server closes an idle
 * one, so that a kept connection is rarely one the receiver is closing at the moment it is reused.
 */
const IDLE_MS = 4000;
/** Idle connections kept per origin: as many as a dispatcher has attempts in flight by default. */
const FREE_PER_ORIGIN = 32;

/** A lookup that answers `address` whatever the name: the connection goes to the address that was checked. */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * Keep-alive agents, one per origin and checked address: a delivery reuses an idle connection of its
 * origin only when the origin's host still resolves to the address that connection went to (the SSRF
 * check runs on every attempt; a name that now resolves elsewhere gets an agent, and connections, of its
 * own, pinned to the new address).
 */
export function createAgents() {
  const agents = new Map<string, HttpAgent>();
  return {
    /** The agent of `url`'s origin pinned to `address`. */
    of(url: URL, address: string): HttpAgent {
      const key = `${url.protocol}//${url.host}@${address}`;
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key); // most recently used last
      } else {
        const Agent = url.protocol === 'https:' ? HttpsAgent : HttpAgent;
        agent = new Agent({
          keepAlive: true,
          maxFreeSockets: FREE_PER_ORIGIN,
          timeout: IDLE_MS,
          lookup: pinnedLookup(address),
        } as ConstructorParameters<typeof HttpsAgent>[0]);
        const oldest = agents.size >= AGENTS_KEPT ? agents.keys().next().value : undefined;
        if (oldest !== undefined) {
          agents.get(oldest)?.destroy();
          agents.delete(oldest);
        }
      }
      agents.set(key, agent);
      return agent;
    },
    /** Closes every kept connection. */
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
