/**
 * A session's resource subscriptions. A subscribed run (or its story) is followed on its event
 * stream in Redis from the event that was last when the subscription began; a batch on its
 * batch stream; a pipeline through the registrations the pipelines suite already hears of. Each
 * change schedules `notifications/resources/updated` for the URI, debounced: events that come
 * within `debounceMs` of the first make one notification, sent after the last of them is in
 * Redis, so a reader never misses the state that caused it. A finished run no longer changes,
 * so its follower stops at its `done` event; unsubscribing or closing the session stops all.
 */
import type { Redis } from 'ioredis';
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import type { PipelineStore, RunStore, StreamEvent, StreamHub } from '@switchyard/pipeline';
import { resourceNotFound } from './read.js';
import { parseResourceUri, type ResourceTarget } from './uris.js';

export interface SubscriptionOptions {
  store: RunStore;
  pipelines: PipelineStore;
  hub: StreamHub;
  /** Tells of a new version of pipeline `name`; answers the function that stops telling. */
  onPipelineChanged(listener: (name: string) => void): () => void;
  /** Sends `notifications/resources/updated` for `uri`. */
  notify(uri: string): Promise<void>;
  /** Milliseconds over which a run's events make one notification (default 200). */
  debounceMs?: number;
  /** Most URIs a session may follow at once (default 100). */
  maxSubscriptions?: number;
}

interface Subscription {
  stop(): void;
  timer: NodeJS.Timeout | undefined;
  /** The notification being sent, if any: unsubscribing waits for it (see unsubscribe). */
  sending: Promise<void> | undefined;
}

export class ResourceSubscriptions {
  readonly #options: SubscriptionOptions;
  readonly #subscriptions = new Map<string, Subscription>();

  constructor(options: SubscriptionOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  has(uri: string): boolean {
    return this.#subscriptions.has(uri);
  }

  /** Follows `uri` until unsubscribed; a URI that names nothing is the resource-not-found error. */
  async subscribe(uri: string): Promise<void> {
    if (this.#subscriptions.has(uri)) return;
    const target = parseResourceUri(uri);
    if (!target) throw resourceNotFound(uri, `No resource ${uri} to subscribe to`);
    if (this.#subscriptions.size >= (this.#options.maxSubscriptions ?? 100)) {
      throw Object.assign(new Error(`At most ${this.#options.maxSubscriptions ?? 100} subscriptions per session: unsubscribe from some first`), { code: -32602, data: { uri } });
    }
    const subscription: Subscription = { stop: () => undefined, timer: undefined, sending: undefined };
    // Recorded before the first await, so that a second subscribe to the same URI meanwhile adds nothing.
    this.#subscriptions.set(uri, subscription);
    try {
      subscription.stop = await this.#follow(uri, target, subscription);
    } catch (error) {
      this.#subscriptions.delete(uri);
      throw error;
    }
    // Unsubscribed while the follower was being set up.
    if (this.#subscriptions.get(uri) !== subscription) subscription.stop();
  }

  /**
   * Stops following `uri`. Settles once a notification already being sent for it is written, so
   * that the answer to `resources/unsubscribe` comes after every notification of the URI: none is
   * sent after it, and none sent before it can overtake it.
   */
  async unsubscribe(uri: string): Promise<void> {
    const subscription = this.#subscriptions.get(uri);
    if (!subscription) return;
    this.#subscriptions.delete(uri);
    clearTimeout(subscription.timer);
    subscription.stop();
    await subscription.sending;
  }

  close(): void {
    for (const uri of [...this.#subscriptions.keys()]) void this.unsubscribe(uri);
  }

  #schedule(uri: string, subscription: Subscription): void {
    if (subscription.timer || this.#subscriptions.get(uri) !== subscription) return;
    subscription.timer = setTimeout(() => {
      subscription.timer = undefined;
      if (this.#subscriptions.get(uri) !== subscription) return;
      const sending = this.#options.notify(uri).catch(() => undefined);
      subscription.sending = sending;
      void sending.then(() => {
        if (subscription.sending === sending) subscription.sending = undefined;
      });
    }, this.#options.debounceMs ?? 200);
  }

  async #follow(uri: string, target: ResourceTarget, subscription: Subscription): Promise<() => void> {
    const { store } = this.#options;
    switch (target.kind) {
      case 'run':
      case 'story': {
        const key = store.keys.events(target.runId);
        // The last event before the run is read: nothing after it is missed, nothing before it is told again.
        const after = await lastEventId(store.redis, key);
        const status = await store.getStatus(target.runId);
        if (!status) throw resourceNotFound(uri, `No run ${target.runId}`);
        if (TERMINAL_STATUSES.includes(status)) return () => undefined;
        const changes = target.kind === 'run' ? (event: StreamEvent) => event.type !== 'content' && event.type !== 'reset' : (event: StreamEvent) => event.type === 'done';
        const stop = this.#options.hub.follow(key, after, (events) => {
          if (events.some(changes)) this.#schedule(uri, subscription);
          if (events.some((event) => event.type === 'done')) stop();
        });
        return stop;
      }
      case 'batch': {
        const key = store.keys.batchEvents(target.batchId);
        const after = await lastEventId(store.redis, key);
        if (!(await store.redis.hexists(store.keys.batch(target.batchId), 'id'))) throw resourceNotFound(uri, `No batch ${target.batchId}`);
        const stop = this.#options.hub.follow(key, after, (events) => {
          this.#schedule(uri, subscription);
          if (events.some((event) => event.type === 'done')) stop();
        });
        return stop;
      }
      case 'pipeline': {
        if ((await this.#options.pipelines.latestVersion(target.name)) === 0) throw resourceNotFound(uri, `No pipeline ${target.name}`);
        return this.#options.onPipelineChanged((name) => name === target.name && this.#schedule(uri, subscription));
      }
      case 'pipelineVersion': {
        // Versions are immutable: subscribing is allowed, and nothing will ever be sent.
        if (!(await this.#options.pipelines.get(target.name, target.version))) throw resourceNotFound(uri, `No version ${target.version} of pipeline ${target.name}`);
        return () => undefined;
      }
    }
  }
}

async function lastEventId(redis: Redis, key: string): Promise<string> {
  const [last] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
  return last?.[0] ?? '0';
}
