/**
 * Checking refused requests in tests: the error body has the one shape every service uses, and
 * the request left no key behind in Redis under the stack's prefix.
 */
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import type { TestStack } from './stack.js';

export interface ErrorReply {
  status: number;
  headers: Headers;
  error: { code: string; message: string; details?: unknown };
}

/** Reads a response that must be an error: JSON with exactly `{error:{code,message,details?}}`. */
export async function readError(res: Response): Promise<ErrorReply> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `HTTP ${res.status} answers with JSON`);
  const body = (await res.json()) as { error?: Record<string, unknown> };
  assert.deepEqual(Object.keys(body), ['error'], `body is {error}: ${JSON.stringify(body)}`);
  const error = body.error ?? {};
  assert.equal(typeof error.code, 'string');
  assert.equal(typeof error.message, 'string');
  assert.ok((error.message as string).length > 0, 'the message says something');
  for (const key of Object.keys(error)) assert.ok(['code', 'message', 'details'].includes(key), `unexpected field error.${key}`);
  return { status: res.status, headers: res.headers, error: error as ErrorReply['error'] };
}

/** Every key under the stack's prefix, so a test can tell whether a request wrote anything. */
export class KeyWatch {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(stack: Pick<TestStack, 'redisUrl' | 'prefix'>) {
    this.#redis = createRedisClient(stack.redisUrl);
    this.#prefix = stack.prefix;
  }

  async keys(): Promise<Set<string>> {
    return new Set(await scanKeys(this.#redis, keyspace(this.#prefix).pattern));
  }

  /**
   * Waits until the keys stop changing: a stack writes keys of its own as it starts (at least its
   * BullMQ queue metadata, a moment after it listens), which must not be taken for a request's.
   */
  async settled(quietMs = 300, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = [...(await this.keys())].sort().join('\n');
    for (;;) {
      await new Promise((r) => setTimeout(r, quietMs));
      const now = [...(await this.keys())].sort().join('\n');
      if (now === last && now !== '') return;
      if (Date.now() > deadline) throw new Error(`keys under ${this.#prefix} still changing after ${timeoutMs} ms`);
      last = now;
    }
  }

  /**
   * Runs `request`, which must be refused, and fails if a key appeared under the prefix meanwhile;
   * but for the count of wrong keys from the client's address, the one write a wrong key is meant
   * to make (FailedKeyLimiter).
   */
  async refused(request: () => Promise<Response>): Promise<ErrorReply> {
    const before = await this.keys();
    const reply = await readError(await request());
    const added = [...(await this.keys())].filter((key) => !before.has(key) && !key.startsWith(`${keyspace(this.#prefix).shared}:auth:failed:`));
    assert.deepEqual(added, [], `a refused request (HTTP ${reply.status} ${reply.error.code}) wrote nothing`);
    assert.ok(reply.status >= 400 && reply.status < 500, `a client error, not HTTP ${reply.status}: ${reply.error.message}`);
    return reply;
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => undefined);
  }
}
