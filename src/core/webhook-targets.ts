/**
 * Where a webhook may be delivered (SSRF): `https` to public addresses; `http` on loopback, and private
 * targets, only when the operator allows them (development). Checked on the URL, then on every address
 * its host resolves to: at registration and again before every attempt, since DNS can change.
 */
import { BlockList, isIP } from 'node:net';
import { invalidInput } from './errors.js';

const internal = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  internal.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(prefix, bits, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) is checked as the IPv4 address it is. */
function plain(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, type: 'ipv4' };
  return { address, type: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Whether an address is loopback. */
export function isLoopback(address: string): boolean {
  const { address: a, type } = plain(address);
  return loopback.check(a, type);
}

/** Whether an address is loopback, private, link-local or otherwise not a public internet address. */
export function isInternalAddress(address: string): boolean {
  const { address: a, type } = plain(address);
  return internal.check(a, type);
}

/** Resolves a host name to its addresses (the DNS adapter; an IP literal resolves to itself). */
export type ResolveHost = (host: string) => Promise<string[]>;

const refused = (message: string) => invalidInput('url', message);

/** Checks a URL's form: `https`, or `http` when private targets are allowed; no credentials in it. */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate)) throw refused('must use https');
  if (url.username || url.password) throw refused('must not carry credentials');
  return url;
}

/**
 * Checks a URL and the addresses of its host; returns the addresses to connect to (the caller connects to
 * one of these, not to a second resolution of the name). Refusals are VALIDATION_FAILED on `url`.
 */
export async function checkWebhookTarget(raw: string, allowPrivate: boolean, resolve: ResolveHost): Promise<string[]> {
  const url = parseWebhookUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    throw refused(`host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw refused(`host ${host} does not resolve`);
  for (const address of addresses) {
    if (!allowPrivate && isInternalAddress(address)) throw refused(`resolves to an internal address (${address})`);
    if (url.protocol === 'http:' && !isLoopback(address)) throw refused('must use https unless it is on loopback');
  }
  return addresses;
}
