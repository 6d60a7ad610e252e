/**
 * A client's initialize params are kept with its session for as long as the session lives (a day
 * idle, in Redis; replayed into every replica that takes the session up), so they are bounded
 * before anything is stored: each text field of `clientInfo` is cut to a length a name needs, and
 * params still larger than the limit refuse the session. What the client's server sees is the
 * same bounded params that are kept.
 */

/** Bytes of initialize params (as JSON) a session may keep (default of MCP_MAX_INITIALIZE_BYTES). */
export const DEFAULT_MAX_INITIALIZE_BYTES = 16 * 1024;

/** Characters kept of each text field of `clientInfo` (name, version, title, websiteUrl, …); the rest is cut. */
export const MAX_CLIENT_INFO_CHARS = 256;

export class InitializeTooLargeError extends Error {
  override name = 'InitializeTooLargeError';
  readonly bytes: number;
  readonly limit: number;

  constructor(bytes: number, limit: number) {
    super(`The initialize params are ${bytes} bytes as JSON, more than the ${limit} this bridge keeps for a session`);
    this.bytes = bytes;
    this.limit = limit;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `text` cut to `max` UTF-16 units, without leaving half of a surrogate pair at the end. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

/** The params a session keeps; throws InitializeTooLargeError when they are over `maxBytes` even with `clientInfo` cut. */
export function boundInitialize(params: Record<string, unknown>, maxBytes = DEFAULT_MAX_INITIALIZE_BYTES): Record<string, unknown> {
  const { clientInfo } = params;
  const bounded = isRecord(clientInfo) ? { ...params, clientInfo: Object.fromEntries(Object.entries(clientInfo).map(([field, value]) => [field, typeof value === 'string' ? cut(value, MAX_CLIENT_INFO_CHARS) : value])) } : params;
  const bytes = Buffer.byteLength(JSON.stringify(bounded));
  if (bytes > maxBytes) throw new InitializeTooLargeError(bytes, maxBytes);
  return bounded;
}
