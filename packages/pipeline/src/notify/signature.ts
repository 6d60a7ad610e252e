/**
 * A webhook's signature: HMAC-SHA256 of `${timestamp}.${body}` with WEBHOOK_SECRET, sent as
 * `Switchyard-Signature: t=<unix seconds>,v1=<hex>`. A receiver recomputes it over the raw body,
 * compares in constant time, and refuses a timestamp too old (a replay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Switchyard-Signature';

/** The header value signing `body` at `timestamp` (unix seconds). */
export function signWebhook(secret: string, body: string, timestamp: number): string {
  const hex = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${hex}`;
}

/**
 * Whether `header` signs `body` with `secret`, made at most `toleranceS` seconds from `now` (unix
 * seconds; default 300): what a receiver checks.
 */
export function verifyWebhookSignature(options: { secret: string; body: string; header: string | null | undefined; toleranceS?: number; now?: number }): boolean {
  const parts = Object.fromEntries((options.header ?? '').split(',').map((part) => part.trim().split('=') as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || typeof parts.v1 !== 'string') return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceS ?? 300)) return false;
  const expected = Buffer.from(signWebhook(options.secret, options.body, timestamp).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
