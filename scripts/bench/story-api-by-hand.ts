/**
 * The hand-written story flow behind an HTTP API at its least, for the guarantees part's
 * end-to-end figures: Switchyard's end-to-end time runs from `POST /v1/stories` to the run's `done`
 * read from its stream, so the flow it is held against must take a request and tell its end the
 * same way. Express, as the orchestrator uses; a bearer key checked, a JSON body of bounded size
 * with a string topic, 202 with the run's id. No admission, fair shares, idempotency, telemetry
 * or error shape: those are the engine's, beyond the least.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Redis } from 'ioredis';
import { readEvents } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import type { BaselineUnderTest } from './story-baseline.js';

export interface ApiByHand {
  /** POST /stories, then reads the run's stream until its `done` event (after the story's polish job completed, as Switchyard's client waits). */
  runStory(topic: string): Promise<void>;
  close(): Promise<void>;
}

const BODY_LIMIT = '64kb';
const READ_BLOCK_MS = 10_000;

/**
 * @param flow a hand-written flow whose guarantees tell a run's end on its stream
 * @param eventsKey the stream of a run, by its id
 */
export async function serveByHand(flow: BaselineUnderTest, options: { redisUrl: string; eventsKey: (runId: string) => string }): Promise<ApiByHand> {
  const apiKey = `by-hand-${randomBytes(12).toString('hex')}`;
  const app = express();
  app.post('/stories', express.json({ limit: BODY_LIMIT }), (req, res, next) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return void res.status(401).json({ error: 'unauthorized' });
    const topic: unknown = (req.body as { topic?: unknown } | undefined)?.topic;
    if (typeof topic !== 'string') return void res.status(400).json({ error: 'topic must be a string' });
    const runId = `run_${randomBytes(16).toString('hex')}`;
    flow.addStory(runId).then(() => res.status(202).json({ run_id: runId }), next);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Blocking reads need a connection of their own.
  const reader: Redis = createRedisClient(options.redisUrl);

  async function readDone(runId: string): Promise<void> {
    for (let after = '0'; ; ) {
      const events = await readEvents({ redis: reader, key: options.eventsKey(runId), after, blockMs: READ_BLOCK_MS, count: 1000 });
      if (events.length === 0) throw new Error(`no event of run ${runId} for ${READ_BLOCK_MS} ms`);
      if (events.some((event) => event.type === 'done')) return;
      after = events.at(-1)?.id ?? after;
    }
  }

  return {
    async runStory(topic) {
      const ended = flow.nextStoryEnd();
      const res = await fetch(`${url}/stories`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ topic }) });
      if (res.status !== 202) throw new Error(`POST /stories answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const { run_id: runId } = (await res.json()) as { run_id: string };
      await ended;
      await readDone(runId);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await reader.quit();
    },
  };
}
