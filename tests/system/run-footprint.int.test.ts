/**
 * What a finished story run keeps in Redis: once compacted, at most 8 KB over all its keys (its
 * hash, event stream, archive, and any BullMQ job of its steps), and every reader (the run view
 * with its result, the SSE replay from the start, a resume from Last-Event-ID) reads exactly what
 * it read before; a cancelled run likewise, its outputs and the jobs its end stopped included.
 * Completed step jobs are removed at once, so a step job added again finds its stage done in the
 * run and does nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobId, runKeys, STEP_JOB_NAME, toolQueue } from '@switchyard/pipeline';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import { countingAuthor } from '../../services/orchestrator/src/testing/authors.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const MAX_BYTES_PER_RUN = 8 * 1024;
const author = countingAuthor();
let stack: TestStack;
let redis: Redis;
before(async () => {
  // Chunks 60 ms apart: each is an event of its own (coalescing joins chunks within 50 ms), as with a model streaming.
  stack = await startTestStack({ label: 'footprint', author, faults: { chunkDelayMs: 60 }, compaction: { intervalMs: 3_600_000, afterMs: 0 } });
  redis = createRedisClient(stack.redisUrl);
});
after(async () => {
  redis.disconnect();
  await stack.close();
});

/** Every key of the run, with its bytes (MEMORY USAGE over all its elements): its own and its steps' BullMQ jobs. */
async function footprint(runId: string): Promise<{ bytes: number; sizes: Record<string, number> }> {
  // The run's own keys (`{t:…:run:<id>}…`) and its jobs under the shared tag, on every master of a cluster.
  const space = keyspace(stack.prefix);
  const keys = (await scanKeys(redis, space.pattern)).filter((key) => key.includes(runId));
  const label = (key: string) => key.replace(`${space.shared}:`, '').replace(`{${space.name}:`, '').replace(runId, '{run}');
  const sizes: Record<string, number> = {};
  for (const key of keys.sort()) sizes[label(key)] = (await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0;
  return { bytes: Object.values(sizes).reduce((a, b) => a + b, 0), sizes };
}

interface Readings {
  view: Record<string, unknown>;
  replay: { id: string | undefined; event: string | undefined; data: string }[];
  resumed: { id: string | undefined; event: string | undefined; data: string }[];
}

/** The run as every reader sees it: the view, the whole replay, and a resume from its 40th event. */
async function readings(runId: string, resumeFrom: string): Promise<Readings> {
  const { body: view } = await stack.json<Record<string, unknown>>(`/v1/runs/${runId}`);
  const strip = (events: Awaited<ReturnType<typeof readSse>>) => events.map(({ id, event, data }) => ({ id, event, data }));
  const replay = strip(await readSse(await stack.request(`/v1/runs/${runId}/events`)));
  const resumed = strip(await readSse(await stack.request(`/v1/runs/${runId}/events`, { headers: { 'Last-Event-ID': resumeFrom } })));
  return { view, replay, resumed };
}

async function startStory(topic: string): Promise<string> {
  const created = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic, style: 'descriptive' }) });
  assert.equal(created.status, 202);
  return created.body.run_id;
}

test('a finished story run keeps at most 8 KB in Redis once compacted, and reads, replays and resumes the same as before', async () => {
  const runIds = await Promise.all([startStory('a beekeeper who hears the hive sing'), startStory('a lighthouse that keeps the wrong time')]);
  for (const runId of runIds) assert.equal((await stack.waitForRun(runId, 60_000)).status, 'completed');

  const before = await Promise.all(runIds.map(async (runId) => ({ runId, footprint: await footprint(runId), events: await redis.xrange(runKeys(stack.prefix).events(runId), '-', '+') })));
  const beforeReadings = await Promise.all(before.map(({ runId, events }) => readings(runId, events[40]?.[0] as string)));
  for (const [i, { events }] of before.entries()) {
    assert.ok(events.filter(([, fields]) => fields[1] === 'content').length > 40, 'the run streamed its sections as many content events');
    assert.equal(beforeReadings[i]?.replay.length, events.length, 'the replay is every event');
    assert.equal(beforeReadings[i]?.resumed.length, events.length - 41, 'a resume is every event after the one named');
  }

  const cpu = process.cpuUsage();
  const report = await stack.workers!.compactor.pass();
  const used = process.cpuUsage(cpu);
  assert.equal(report.compacted, 2);
  assert.equal((await stack.workers!.compactor.pass()).compacted, 0, 'a run is compacted once');

  for (const [i, { runId, events, footprint: was }] of before.entries()) {
    const now = await footprint(runId);
    process.stdout.write(`# footprint: ${JSON.stringify({ events: events.length, bytes_before: was.bytes, bytes_after: now.bytes, before: was.sizes, after: now.sizes })}\n`);
    assert.ok(now.bytes <= MAX_BYTES_PER_RUN, `a finished run keeps ${now.bytes} bytes: ${JSON.stringify(now.sizes)}`);
    assert.ok(!Object.keys(now.sizes).some((key) => key.startsWith('tool-')), 'no BullMQ job of the run is left');
    assert.equal(await redis.object('ENCODING', runKeys(stack.prefix).run(runId)), 'listpack', 'the kept hash is small again');
    assert.ok((await redis.pttl(runKeys(stack.prefix).archive(runId))) > 0, 'the archive expires with the run');
    assert.deepEqual(await readings(runId, events[40]?.[0] as string), beforeReadings[i], 'the view, the replay and a resume read as before');
  }
  process.stdout.write(`# compaction: ${JSON.stringify({ runs: report.compacted, archive_bytes: report.archive_bytes, cpu_ms_per_run: Math.round((used.user + used.system) / 100 / report.compacted) / 10 })}\n`);
});

test('a cancelled run is compacted with its outputs: at most 8 KB, and it reads the same as before', async () => {
  const sections = author.calls.writeSection;
  author.hooks.writeSection = (_input, options) => new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    const runId = await startStory('a lamplighter in a city of bulbs');
    await waitFor(async () => author.calls.writeSection, (n) => n >= sections + 4, 'the four writers have started');
    assert.equal((await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' })).status, 200);
    await stack.waitForRun(runId);
    const keys = runKeys(stack.prefix);
    // The writers stop (each records its stage cancelled) before the run is read.
    const stages = async () => (await stack.json<{ stages: { attempts: number; finished_at: string | null }[] }>(`/v1/runs/${runId}`)).body.stages;
    await waitFor(stages, (list) => list.every((stage) => stage.attempts === 0 || stage.finished_at !== null), 'every stage started has stopped');
    const events = await redis.xrange(keys.events(runId), '-', '+');
    const was = await footprint(runId);
    assert.ok(Object.keys(await redis.hgetall(keys.outputs(runId))).length >= 2, 'the search and the outline are stored');
    const readBefore = await readings(runId, events[3]?.[0] as string);

    assert.ok(Object.keys(was.sizes).filter((key) => key.startsWith('tool-writing:')).length === 4, 'the four writers\' jobs failed: their run had ended');
    // The polish waited on them as their flow parent: failing, they fail it, unrun.
    const editing = new Queue(toolQueue('editing'), { connection: redis, prefix: stack.prefix });
    await waitFor(() => editing.getJobState(jobId(runId, 'polish')), (state) => state === 'failed', 'the polish failed with the writers');
    assert.match((await editing.getJob(jobId(runId, 'polish')))?.failedReason ?? '', /^child \S+ failed$/);
    await editing.close();
    const report = await stack.workers!.compactor.pass();
    assert.equal(report.compacted, 1);
    assert.equal(report.jobs_removed, 5, 'jobs refused because their run had ended are removed with it, and the polish they failed');
    const now = await footprint(runId);
    process.stdout.write(`# cancelled: ${JSON.stringify({ events: events.length, bytes_before: was.bytes, bytes_after: now.bytes, after: now.sizes })}\n`);
    assert.ok(now.bytes <= MAX_BYTES_PER_RUN, `a cancelled run keeps ${now.bytes} bytes: ${JSON.stringify(now.sizes)}`);
    assert.deepEqual(await redis.hgetall(keys.outputs(runId)), { '.compacted': '1' }, 'the outputs are archived; a late write still expires');
    assert.ok((await redis.pttl(keys.outputs(runId))) > 0);
    assert.deepEqual(await readings(runId, events[3]?.[0] as string), readBefore);
  } finally {
    delete author.hooks.writeSection;
  }
});

test('an outline job added again once its writers have run adds them again without their inputs: they find their stages done and write nothing', async () => {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  author.hooks.polish = () => held;
  const polishes = author.calls.polish;
  const runId = await startStory('a lamplighter who forgets one street');
  const queue = new Queue(toolQueue('outline'), { connection: redis, prefix: stack.prefix });
  const writers = new Queue(toolQueue('writing'), { connection: redis, prefix: stack.prefix });
  const outlineJob = jobId(runId, 'outline');
  try {
    await waitFor(async () => author.calls.polish, (n) => n > polishes, 'the polish is under way');
    const sections = author.calls.writeSection;
    const { body } = await stack.json<{ pipeline: { version: number } }>(`/v1/runs/${runId}`);
    // As a worker taken over after its advance would: the outline's job runs again, finds its stage done, and adds the writers again.
    await queue.add(STEP_JOB_NAME, { run_id: runId, pipeline: 'story', version: body.pipeline.version, step: 'outline' }, { jobId: outlineJob, removeOnComplete: true });
    await waitFor(() => queue.getJobState(outlineJob), (state) => state === 'unknown', 'the outline job added again is completed and removed');
    const added = await Promise.all(['introduction', 'development', 'climax', 'conclusion'].map((key) => writers.getJob(jobId(runId, `write.${key}`))));
    for (const job of added) assert.equal((job?.data as { carried?: unknown } | undefined)?.carried, undefined, 'a writer added again carries nothing');
    await waitFor(async () => Promise.all(added.map((job) => (job ? writers.getJobState(job.id as string) : 'unknown'))), (states) => states.every((state) => state === 'unknown' || state === 'completed'), 'the writers added again are done');
    assert.equal(author.calls.writeSection, sections, 'no section was written again');
    release();
    assert.equal((await stack.waitForRun(runId)).status, 'completed');
  } finally {
    release();
    delete author.hooks.polish;
    await queue.close();
    await writers.close();
  }
});

test('a step job added again after its stage completed finds the stage done: no tool call, no event, no key brought back', async () => {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  author.hooks.polish = () => held;
  const calls = author.calls.research;
  const polishes = author.calls.polish;
  const runId = await startStory('a ferryman who counts the river');
  const queue = new Queue(toolQueue('search'), { connection: redis, prefix: stack.prefix });
  const keys = runKeys(stack.prefix);
  const searchJob = jobId(runId, 'search');
  /** Adds the run's search job again under its id and waits until it has been worked: removed (completed), or failed. */
  const addSearchAgain = async (until: 'unknown' | 'failed') => {
    const { body } = await stack.json<{ pipeline: { version: number } }>(`/v1/runs/${runId}`);
    await queue.add(STEP_JOB_NAME, { run_id: runId, pipeline: 'story', version: body.pipeline.version, step: 'search' }, { jobId: searchJob, removeOnComplete: true });
    await waitFor(() => queue.getJobState(searchJob), (state) => state === until, `the job added again is ${until === 'unknown' ? 'completed and removed' : 'failed'}`);
  };
  try {
    await waitFor(async () => author.calls.polish, (n) => n > polishes, 'the polish is under way');
    // A stage that lasts is announced running a little after it started: that event is the run's, not the re-added job's.
    await waitFor(async () => (await redis.xrange(keys.events(runId), '-', '+')).some(([, fields]) => fields.includes('{"stage":"polish","status":"running","attempt":1}')), (announced) => announced, 'the polish is announced running');
    assert.equal(await queue.getJobState(searchJob), 'unknown', 'the completed search job was removed');

    // While the run goes on: the stage's output is stored, so its tool is not called again.
    const eventsBefore = await redis.xlen(keys.events(runId));
    await addSearchAgain('unknown');
    assert.equal(author.calls.research, calls + 1, 'research was called once');
    assert.equal(await redis.xlen(keys.events(runId)), eventsBefore, 'no event was written');
    release();
    const run = await stack.waitForRun(runId);
    assert.equal(run.status, 'completed');
    assert.equal((run.stages as { name: string; attempts: number }[]).find((s) => s.name === 'search')?.attempts, 1);

    // Once the run has ended and been compacted, the job is refused (an ended run is not worked
    // on, see stage-runner.ts): nothing is called or written, and no key comes back.
    await stack.workers!.compactor.pass();
    const view = await stack.json(`/v1/runs/${runId}`);
    await addSearchAgain('failed');
    assert.match((await queue.getJob(searchJob))?.failedReason ?? '', /is completed/);
    assert.equal(author.calls.research, calls + 1);
    assert.equal(await redis.xlen(keys.events(runId)), 0, 'the compacted stream stays empty');
    assert.equal(await redis.exists(keys.outputs(runId)), 0);
    assert.deepEqual((await stack.json(`/v1/runs/${runId}`)).body, view.body);
  } finally {
    release();
    delete author.hooks.polish;
    await (await queue.getJob(searchJob))?.remove();
    await queue.close();
  }
});
