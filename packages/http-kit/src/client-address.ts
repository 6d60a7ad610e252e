/**
 * The client address a request is counted under when it presents wrong keys: Express's `req.ip`,
 * the peer's address unless the app trusts proxies (`trust proxy`, set from TRUST_PROXY), then
 * the address the trusted proxies name in `X-Forwarded-For`; an IPv4-mapped IPv6 address as its IPv4 form, and any other IPv6
 * address as its /64, since one host is commonly given a whole /64 and could otherwise try from
 * 2^64 addresses.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/** Groups of an IPv6 address's text, a trailing dotted IPv4 (`::ffff:1.2.3.4`) written as two. */
function hexGroups(part: string): string[] {
  const groups = part ? part.split(':') : [];
  const last = groups.at(-1);
  if (last === undefined || !isIPv4(last)) return groups;
  const [a = 0, b = 0, c = 0, d = 0] = last.split('.').map(Number);
  return [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is none. */
function ipv6Groups(address: string): number[] | undefined {
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return undefined;
  const [head = '', tail] = bare.split('::');
  const left = hexGroups(head);
  const right = tail === undefined ? [] : hexGroups(tail);
  const zeros = Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}

/** The address under which failures of `address` are counted; see the module's comment. */
export function addressBucket(address: string | undefined): string {
  if (!address) return 'unknown';
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The bucket of the request's client address (its peer's, or the one its trusted proxies name). */
export function clientAddress(req: Pick<Request, 'socket' | 'ip'>): string {
  return addressBucket(req.ip ?? req.socket.remoteAddress);
}
