/**
 * Requests made from a loopback address of the test's choosing (127.0.0.x: Linux routes the
 * whole 127/8 to the loopback interface), so that a test can be several clients, as the services
 * count wrong keys per client address.
 */
import { request } from 'node:http';

export interface AddressedReply {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { code: string; message?: string; details?: { retry_after_s?: number } } };
}

/** Sends a request to `path` of `base` from the local address `from`; the body is sent as JSON. */
export function sendFrom(base: string, path: string, options: { from: string; method?: string; headers?: Record<string, string>; body?: unknown }): Promise<AddressedReply> {
  const url = new URL(path, base);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const headers = { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers };
    const req = request(url, { method: options.method ?? 'GET', localAddress: options.from, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const retryAfter = res.headers['retry-after'];
        let parsed: AddressedReply['body'] = {};
        try {
          parsed = text ? (JSON.parse(text) as AddressedReply['body']) : {};
        } catch {
          parsed = {};
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
