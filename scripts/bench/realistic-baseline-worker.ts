/**
 * A worker process of the realistic bench's baseline: the story's seven steps written by hand on
 * BullMQ, as a team without Switchyard would write them, making the same calls to the same
 * reference services. Search and outline are plain `fetch` calls; each writer reads its section
 * as Server-Sent Events with eventsource-parser and appends every chunk to the story's Redis
 * stream (what a client would follow); polish is an async task polled on the tool client's
 * schedule (250 ms, then 1.5× each time, jittered, up to 5 s). The outline job adds the second
 * flow (four writers under the polish), as story-baseline.ts does. Started by realistic-baseline.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowProducer, Worker, type FlowJob, type Job } from 'bullmq';
import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import { SECTION_ORDER, type OutlineOutput, type SearchOutput, type WriteSectionOutput } from '@switchyard/contracts';
import { STAGE_JOB_OPTIONS } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { BASELINE_REALISTIC_QUEUES as QUEUES, baselineKeys, type BaselineStory } from './realistic-baseline-keys.js';

const Env = z.object({
  REDIS_URL: z.string().min(1),
  BASELINE_PREFIX: z.string().min(1),
  BASELINE_CONCURRENCY: z.coerce.number().int().positive(),
  LOCK_DURATION_MS: z.coerce.number().int().positive(),
  LOCK_RENEW_MS: z.coerce.number().int().positive(),
  STALLED_INTERVAL_MS: z.coerce.number().int().positive(),
  SEARCH_SERVICE_URL: z.url(),
  OUTLINE_SERVICE_URL: z.url(),
  WRITING_SERVICE_URL: z.url(),
  EDITING_SERVICE_URL: z.url(),
  TOOL_SERVICE_API_KEY: z.string().default(''),
});
const env = Env.parse(process.env);
const keys = baselineKeys(env.BASELINE_PREFIX);
const headers = { authorization: `Bearer ${env.TOOL_SERVICE_API_KEY}`, 'content-type': 'application/json' };
const CALL_TIMEOUT_MS = 90_000;

async function post(url: string, body: unknown, accept = 'application/json'): Promise<Response> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, accept }, body: JSON.stringify(body), signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return res;
}

async function callSync<T>(url: string, body: unknown): Promise<T> {
  return ((await (await post(url, body)).json()) as { result: T }).result;
}

/** Reads a section's stream, each chunk appended to the story's stream as it comes; the `done` event's result. */
async function callStreamed(story: string, section: string, body: unknown): Promise<WriteSectionOutput> {
  const res = await post(`${env.WRITING_SERVICE_URL}/run/write_story_section?stream=true`, body, 'text/event-stream');
  let result: WriteSectionOutput | undefined;
  const appends: Promise<unknown>[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === 'content') appends.push(redis.xadd(keys.events(story), '*', 'section', section, 'chunk', (JSON.parse(event.data) as { chunk: string }).chunk));
      else if (event.event === 'done') result = (JSON.parse(event.data) as { result: WriteSectionOutput }).result;
      else if (event.event === 'error') throw new Error(`${section}: ${event.data}`);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(bytes, { stream: true }));
  await Promise.all(appends);
  if (!result) throw new Error(`${section}: the stream ended without done`);
  return result;
}

/** Submits an async task and polls it as the tool client does. */
async function callAsync<T>(baseUrl: string, tool: string, body: unknown): Promise<T> {
  const accepted = (await (await post(`${baseUrl}/run/${tool}?async=true`, body)).json()) as { poll_url: string };
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  for (let wait = 250; Date.now() < deadline; wait = Math.min(5000, wait * 1.5)) {
    await sleep(Math.round(wait * (0.5 + Math.random() / 2)));
    const res = await fetch(`${baseUrl}${accepted.poll_url}`, { headers, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const status = (await res.json()) as { status: string; result?: T };
    if (status.status === 'completed') return status.result as T;
    if (status.status === 'failed') throw new Error(`${tool}: the task failed`);
  }
  throw new Error(`${tool}: no result by the deadline`);
}

const redis = createRedisClient(env.REDIS_URL);
const flows = new FlowProducer({ connection: redis, prefix: env.BASELINE_PREFIX });

function sectionsFlow(story: BaselineStory, outline: OutlineOutput): FlowJob {
  return {
    name: 'story.polish',
    queueName: QUEUES.polish,
    data: { story: story.story },
    opts: { ...STAGE_JOB_OPTIONS, jobId: `${story.story}.polish` },
    children: SECTION_ORDER.map((section) => ({
      name: 'story.write',
      queueName: QUEUES.write,
      data: { story: story.story, section, args: { section_name: section, outline: outline.sections[section], story_title: outline.title, characters: outline.sections.introduction.characters, style: story.style } },
      opts: { ...STAGE_JOB_OPTIONS, jobId: `${story.story}.write.${section}`, failParentOnFailure: true },
    })),
  };
}

const processors: Record<string, (job: Job) => Promise<unknown>> = {
  [QUEUES.search]: (job: Job<BaselineStory>) => callSync<SearchOutput>(`${env.SEARCH_SERVICE_URL}/run/search_relevant_information`, { topic: job.data.topic }),
  [QUEUES.outline]: async (job: Job<BaselineStory>) => {
    const [search] = Object.values(await job.getChildrenValues<SearchOutput>());
    const research = (search?.results ?? []).slice(0, 50).map((r) => ({ title: r.title.slice(0, 300) || job.data.topic.slice(0, 300), content: r.snippet.slice(0, 5000) }));
    const outline = await callSync<OutlineOutput>(`${env.OUTLINE_SERVICE_URL}/run/generate_structured_outline`, { topic: job.data.topic, research });
    await flows.add(sectionsFlow(job.data, outline));
    return outline;
  },
  [QUEUES.write]: (job: Job<{ story: string; section: string; args: unknown }>) => callStreamed(job.data.story, job.data.section, job.data.args),
  [QUEUES.polish]: async (job: Job<{ story: string }>) => {
    const written = await job.getChildrenValues<WriteSectionOutput>();
    const byJob = new Map(Object.entries(written).map(([key, value]) => [key.slice(key.lastIndexOf('.') + 1), value]));
    const draft = SECTION_ORDER.map((s) => (byJob.get(s)?.content ?? '').trim()).join('\n\n');
    const polished = await callAsync<unknown>(env.EDITING_SERVICE_URL, 'polish_story', { draft });
    // The story's end, for its followers; its stream then lives a minute more.
    await redis.multi().xadd(keys.events(job.data.story), '*', 'done', '1').expire(keys.events(job.data.story), 60).incr(keys.done).exec();
    return polished;
  },
};

const workers = Object.entries(processors).map(
  ([queue, processor]) => new Worker(queue, processor, { connection: redis, prefix: env.BASELINE_PREFIX, concurrency: env.BASELINE_CONCURRENCY, lockDuration: env.LOCK_DURATION_MS, lockRenewTime: env.LOCK_RENEW_MS, stalledInterval: env.STALLED_INTERVAL_MS, maxStalledCount: 2 }),
);
for (const worker of workers) worker.on('failed', (job, err) => process.stderr.write(`baseline ${job?.id}: ${err.message}\n`));
await Promise.all(workers.map((w) => w.waitUntilReady()));
process.stdout.write('baseline worker ready\n');
process.once('SIGTERM', () => {
  void Promise.all(workers.map((w) => w.close(true)))
    .then(() => flows.close())
    .then(() => redis.quit())
    .finally(() => process.exit(0));
});
