/**
 * Where a run's or batch's webhook may go: `WEBHOOK_ALLOW`, a comma list of hosts (`host` or
 * `host:port`). A `notify.url` whose host is not listed is refused when the run is submitted. At
 * delivery the host is resolved and every address checked: a loopback, private, link-local or
 * otherwise internal address is used only when that address itself is listed, so a listed name
 * that resolves (or is made to resolve) inside the network is refused (SSRF). The address checked
 * is the one connected to (no second lookup).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { DefinitionError } from '../definition/problems.js';

/** Longest webhook URL. */
export const MAX_NOTIFY_URL_CHARS = 2048;

/** A `notify` that cannot be used: its problem names `notify.url`. */
export class NotifyUrlError extends DefinitionError {
  override name = 'NotifyUrlError';
}

/** The parsed `WEBHOOK_ALLOW`: each entry a host (any port) or host:port, lower-case, IPv6 without brackets. */
export interface NotifyAllowList {
  entries: readonly { host: string; port: string | null }[];
}

/** `WEBHOOK_ALLOW` parsed: `hooks.example.com, 127.0.0.1:9000, [::1]:8080`. */
export function parseAllowList(text: string | undefined): NotifyAllowList {
  const entries = (text ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean)
    .map((entry) => {
      const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
      if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? null };
      if (isIP(entry) === 6) return { host: entry, port: null };
      const [host = '', port, ...rest] = entry.split(':');
      if (rest.length > 0 || !host || (port !== undefined && !/^\d{1,5}$/.test(port))) throw new Error(`WEBHOOK_ALLOW: ${JSON.stringify(entry)} is not a host or host:port`);
      return { host, port: port ?? null };
    });
  return { entries };
}

/** The variable a service's env.ts reads the list from. */
export const webhookAllowEnvShape = {
  /** Hosts webhooks may be sent to, `host` or `host:port`, comma-separated (default none: `notify` is refused). Loopback and private addresses only when listed themselves. */
  WEBHOOK_ALLOW: z
    .string()
    .default('')
    .refine((text) => {
      try {
        parseAllowList(text);
        return true;
      } catch {
        return false;
      }
    }, 'a comma list of host or host:port'),
};

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

function listed(allow: NotifyAllowList, host: string, port: string): boolean {
  return allow.entries.some((entry) => entry.host === host && (entry.port === null || entry.port === port));
}

/**
 * The URL of a `notify` as given at submission, checked: http(s), no credentials, at most
 * MAX_NOTIFY_URL_CHARS, its host (and port) in the allow list. A NotifyUrlError naming `notify.url` otherwise.
 */
export function checkNotifyUrl(text: string, allow: NotifyAllowList): URL {
  const refuse = (message: string): never => {
    throw new NotifyUrlError([{ path: 'notify.url', message }]);
  };
  if (text.length > MAX_NOTIFY_URL_CHARS) refuse(`is longer than ${MAX_NOTIFY_URL_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('must be http or https');
  if (url.username || url.password) refuse('must not carry credentials');
  if (allow.entries.length === 0) refuse('webhooks are off: WEBHOOK_ALLOW lists no host');
  if (!listed(allow, hostOf(url), portOf(url))) refuse(`host ${url.host} is not in WEBHOOK_ALLOW`);
  return url;
}

/**
 * Addresses no webhook reaches unless listed: loopback, private, link-local, CGNAT, unspecified,
 * multicast, reserved; in IPv6 also ULA, IPv4-mapped and NAT64. Two lists: Node's BlockList
 * matches an IPv4 address against an IPv4-mapped IPv6 subnet too.
 */
const INTERNAL_V4 = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) INTERNAL_V4.addSubnet(net, bits, 'ipv4');
const INTERNAL_V6 = new BlockList();
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96], ['64:ff9b::', 96]] as const) INTERNAL_V6.addSubnet(net, bits, 'ipv6');

/** Whether `address` is loopback, private or otherwise internal (anything not an IP address is). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL_V4.check(address, 'ipv4');
  return family !== 6 || INTERNAL_V6.check(address, 'ipv6');
}

/** A webhook's destination that may not be reached. */
export class NotifyRefusedError extends Error {
  override name = 'NotifyRefusedError';
}

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * The address to connect to for `url`, checked at delivery: the host still listed, and each
 * address it resolves to either public or listed itself (with the port). A NotifyRefusedError otherwise.
 */
export async function resolveNotifyAddress(url: URL, allow: NotifyAllowList, lookup: Lookup = systemLookup): Promise<{ address: string; family: number }> {
  const host = hostOf(url);
  const port = portOf(url);
  if (!listed(allow, host, port)) throw new NotifyRefusedError(`host ${url.host} is no longer in WEBHOOK_ALLOW`);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host);
  if (addresses.length === 0) throw new NotifyRefusedError(`host ${host} resolves to no address`);
  // Every address must pass, not just the first: a resolver answering a mix would otherwise choose for us.
  const refused = addresses.find((a) => isInternalAddress(a.address) && !listed(allow, a.address.toLowerCase(), port));
  if (refused) throw new NotifyRefusedError(`host ${host} resolves to ${refused.address}, an internal address WEBHOOK_ALLOW does not list`);
  return addresses[0] as { address: string; family: number };
}
