/**
 * Where a webhook may be delivered (SSRF): `https` to public addresses; `http` on loopback, and private
 * targets, only when the operator allows them (development). Checked on the URL, then on every address
 * its host resolves to: at registration and again before every attempt, since DNS can change.
 */
import { BlockList, isIP } from 'node:net';
import { invalidInput } from '../shared/index.js';

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
  // Site-local (deprecated by RFC 3879, still routed inside some networks).
  ['fec0::', 10],
  // Local-use NAT64 (RFC 8215): translates into a network of the operator's own choosing.
  ['64:ff9b:1::', 48],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(prefix, bits, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The 16 bytes of an IPv6 address (any text form, an embedded dotted IPv4 included). */
function ipv6Bytes(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted
    ? address.slice(0, dotted.index) +
      [Number(dotted[1]) * 256 + Number(dotted[2]), Number(dotted[3]) * 256 + Number(dotted[4])]
        .map((group) => group.toString(16))
        .join(':')
    : address;
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

const dottedOf = (bytes: number[]) => bytes.join('.');

/**
 * The IPv4 addresses an IPv6 address carries, each of which must itself be public: mapped and compatible
 * (`::ffff:a.b.c.d`, `::a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`) and Teredo (`2001::/32`:
 * its server, and its client with the bits inverted).
 */
function embeddedIpv4(address: string): string[] {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((byte) => byte === 0);
  const last = b.slice(12, 16);
  if (zeros(0, 10) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0))) return [dottedOf(last)];
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return [dottedOf(last)];
  if (b[0] === 0x20 && b[1] === 0x02) return [dottedOf(b.slice(2, 6))];
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    return [dottedOf(b.slice(4, 8)), dottedOf(last.map((byte) => byte ^ 0xff))];
  }
  return [];
}

/** Whether an address is loopback. */
export function isLoopback(address: string): boolean {
  if (isIP(address) === 4) return loopback.check(address, 'ipv4');
  return loopback.check(address, 'ipv6') || embeddedIpv4(address).some((v4) => loopback.check(v4, 'ipv4'));
}

/**
 * Whether an address is loopback, private, link-local or otherwise not a public internet address; an IPv6
 * address also when an IPv4 address it carries is one.
 */
export function isInternalAddress(address: string): boolean {
  if (isIP(address) === 4) return internal.check(address, 'ipv4');
  return internal.check(address, 'ipv6') || embeddedIpv4(address).some((v4) => internal.check(v4, 'ipv4'));
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
