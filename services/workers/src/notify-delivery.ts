/**
 * Delivers a webhook: the summary of the run's (or batch's) end POSTed to its `notify.url`,
 * signed (`Switchyard-Signature`), to an address checked at this moment against WEBHOOK_ALLOW
 * (the name resolved once, the checked address connected to). Each attempt is bounded: a timeout,
 * no redirect followed, at most `responseMaxBytes` of the answer read. A network error or a
 * non-2xx answer fails the attempt and BullMQ retries it with backoff (the catalog's options); a
 * destination refused is not retried.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { UnrecoverableError, type Job } from 'bullmq';
import { crashPoint, NotifyDeliveryJob, NotifyRefusedError, notifySummary, resolveNotifyAddress, SIGNATURE_HEADER, signWebhook, type BatchStore, type Lookup, type NotifyAllowList, type RunStore } from '@switchyard/pipeline';

/** How webhooks are sent (WEBHOOK_*). */
export interface WebhookSettings {
  /** Where they may go (WEBHOOK_ALLOW; default none). */
  allow: NotifyAllowList;
  /** The HMAC key of their signature (WEBHOOK_SECRET). */
  secret: string;
  /** Longest attempt, connection to answer (WEBHOOK_TIMEOUT_MS, default 10000). */
  timeoutMs: number;
  /** Most bytes of an answer read (WEBHOOK_RESPONSE_MAX_BYTES, default 4096); the rest is dropped unread. */
  responseMaxBytes: number;
  /** Resolves a host (default: the system's resolver); tests give their own. */
  lookup?: Lookup;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_RESPONSE_MAX_BYTES = 4096;

/** POSTs `body` to `url` at `address`; resolves with the status once the answer's bounded read is over. */
function post(url: URL, address: { address: string; family: number }, body: string, headers: Record<string, string>, settings: WebhookSettings): Promise<number> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Switchyard-Webhook/1', ...headers },
      lookup: pinned,
      agent: false,
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let read = 0;
      const done = () => {
        response.destroy();
        resolve(response.statusCode ?? 0);
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= settings.responseMaxBytes) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}

export function notifyProcessor(deps: { store: RunStore; batches: BatchStore; settings: WebhookSettings }) {
  return async (job: Job): Promise<{ delivered: boolean; status?: number; attempt: number; reason?: string }> => {
    const { target, url: text } = NotifyDeliveryJob.parse(job.data);
    const attempt = job.attemptsMade + 1;
    const summary = await notifySummary(deps, target);
    if (!summary) return { delivered: false, attempt, reason: 'gone' };
    const url = new URL(text);
    let address: { address: string; family: number };
    try {
      address = await resolveNotifyAddress(url, deps.settings.allow, deps.settings.lookup);
    } catch (error) {
      if (error instanceof NotifyRefusedError) throw new UnrecoverableError(error.message);
      throw error;
    }
    const body = JSON.stringify(summary);
    const signature = signWebhook(deps.settings.secret, body, Math.floor(Date.now() / 1000));
    const status = await post(url, address, body, { [SIGNATURE_HEADER]: signature, 'Switchyard-Delivery': job.id ?? '', 'Idempotency-Key': job.id ?? '', 'Switchyard-Attempt': String(attempt) }, deps.settings);
    if (status < 200 || status > 299) throw new Error(`${url.host} answered ${status}`);
    // Delivered, and not yet known to BullMQ: a worker that takes the job over delivers it again, with the same Idempotency-Key.
    crashPoint('webhook.delivered');
    return { delivered: true, status, attempt };
  };
}
