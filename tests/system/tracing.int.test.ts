/**
 * Traces, with an in-memory exporter in this process: a run is one trace from the API request
 * through BullMQ's jobs to each tool call and the tool service's own span, on real HTTP and Redis.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@switchyard/logger';
import { inSpan, SpanKind } from '@switchyard/telemetry';
import { parentSpanId, startTestTracing, type ReadableSpan, type TestTracing } from '@switchyard/telemetry/testing';
import { finishedRun, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startProxiedTestStack, type RecordingProxy } from '../../services/orchestrator/src/testing/recording-proxy.js';
import type { TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { recordJobs } from '../../services/orchestrator/src/testing/job-recorder.js';

let tracing: TestTracing;
let stack: TestStack;
let proxies: Record<string, RecordingProxy>;
let closeStack: () => Promise<void>;

before(async () => {
  tracing = startTestTracing();
  ({ stack, proxies, close: closeStack } = await startProxiedTestStack({ label: 'tracing' }));
});
after(async () => {
  await closeStack();
  await tracing.close();
});
beforeEach(() => {
  tracing.reset();
  for (const proxy of Object.values(proxies)) proxy.requests.length = 0;
});

const spanId = (span: ReadableSpan) => span.spanContext().spanId;
const traceId = (span: ReadableSpan) => span.spanContext().traceId;
const jobOf = (span: ReadableSpan) => span.attributes['bullmq.job.id'];
const isJob = (span: ReadableSpan) => span.kind === SpanKind.CONSUMER && span.name.startsWith('process ');
const isToolCall = (span: ReadableSpan) => span.kind === SpanKind.CLIENT && typeof span.attributes['switchyard.tool.name'] === 'string';
const isToolServer = (span: ReadableSpan) => span.kind === SpanKind.SERVER && typeof span.attributes['switchyard.tool.service'] === 'string';

/** Waits until `ready` or for `timeoutMs`; what is missing then is for the assertions to name. */
async function waitFor(ready: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** Waits until the job of each of `jobIds` has ended its span, and every tool call has its service's span. */
async function settledSpans(jobIds: readonly string[]): Promise<ReadableSpan[]> {
  await waitFor(() => {
    const spans = tracing.spans();
    const calls = spans.filter(isToolCall).map(spanId);
    const served = new Set(spans.filter(isToolServer).map(parentSpanId));
    return jobIds.every((id) => spans.some((s) => isJob(s) && jobOf(s) === id)) && calls.every((id) => served.has(id));
  });
  return tracing.spans();
}

/** The request span (a SERVER span of the API) answering `METHOD route`. */
function requestSpan(spans: ReadableSpan[], method: string, route: string): ReadableSpan {
  const found = spans.filter((s) => s.kind === SpanKind.SERVER && s.attributes['http.request.method'] === method && s.attributes['http.route'] === route);
  assert.equal(found.length, 1, `one span for ${method} ${route}`);
  return found[0] as ReadableSpan;
}

/** The spans of `root`'s trace, after checking they form one tree whose only root is `root`. */
function oneTree(spans: ReadableSpan[], root: ReadableSpan): ReadableSpan[] {
  const tree = spans.filter((s) => traceId(s) === traceId(root));
  const ids = new Set(tree.map(spanId));
  const roots = tree.filter((s) => !ids.has(parentSpanId(s) ?? ''));
  assert.deepEqual(roots.map((s) => s.name), [root.name], 'the request is the only span whose parent is not in the trace');
  assert.equal(parentSpanId(root), undefined, 'the request starts the trace');
  return tree;
}

/** Whether `span` descends from `ancestor` within `tree`. */
function descends(tree: ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(tree.map((s) => [spanId(s), s]));
  for (let at = byId.get(parentSpanId(span) ?? ''); at; at = byId.get(parentSpanId(at) ?? '')) if (at === ancestor) return true;
  return false;
}

/** Checks each tool call of a trace: under a step job's span, with a tool-service span under it, and its `traceparent` on the wire. */
function checkToolCalls(tree: ReadableSpan[], expected: number): void {
  const byId = new Map(tree.map((s) => [spanId(s), s]));
  const calls = tree.filter(isToolCall);
  assert.equal(calls.length, expected, 'a client span per tool call');
  for (const call of calls) {
    const parent = byId.get(parentSpanId(call) ?? '');
    assert.ok(parent && isJob(parent), `${call.name} is made by a step job`);
    const served = tree.filter((s) => isToolServer(s) && parentSpanId(s) === spanId(call));
    assert.ok(served.some((s) => s.attributes['http.route'] === '/run/:tool'), `${call.name} has the service's POST /run/:tool span under it`);
    assert.ok(served.every((s) => String(s.attributes['switchyard.tool.service']).startsWith(String(call.attributes['switchyard.tool.service']))), 'served by the service called');
  }
  // On the wire: every request to run a tool carried a W3C traceparent naming one of those calls.
  const callIds = new Set(calls.map(spanId));
  const runs = Object.values(proxies).flatMap((p) => p.requests.filter((r) => r.path.startsWith('/run/')));
  assert.equal(runs.length, expected);
  for (const request of runs) {
    const [version, trace, parent, flags] = String(request.headers.traceparent).split('-');
    assert.deepEqual([version, trace, flags], ['00', traceId(calls[0] as ReadableSpan), '01'], `traceparent of ${request.path}`);
    assert.ok(callIds.has(parent ?? ''), `the parent in the traceparent of ${request.path} is a tool call span`);
  }
}

test('a story is one trace: the API request is its only root, with a span per step job, and per tool call a client span over the tool service\'s span', async () => {
  const jobs = recordJobs(stack);
  const created = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lighthouse keeper who collects lost letters' }) });
  assert.equal(created.status, 202);
  const runId = created.body.run_id;
  const run = (await stack.waitForRun(runId)) as unknown as RunBody;
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const stages = run.stages.map((s) => s.name);
  assert.deepEqual(stages, ['search', 'outline', 'write.introduction', 'write.development', 'write.climax', 'write.conclusion', 'polish']);

  const spans = await settledSpans(stages.map((stage) => `${runId}.${stage}`));
  const root = requestSpan(spans, 'POST', '/v1/stories');
  assert.equal(root.attributes['switchyard.run.id'], runId, 'the trace can be found by its run id');
  const tree = oneTree(spans, root);
  const ofRun = spans.filter((s) => String(jobOf(s) ?? '').startsWith(`${runId}.`) || isToolCall(s) || isToolServer(s));
  assert.ok(ofRun.length > 0);
  assert.deepEqual(ofRun.filter((s) => traceId(s) !== traceId(root)).map((s) => s.name), [], 'every span of the run is in the request\'s trace');
  for (const stage of stages) {
    const jobs = tree.filter((s) => isJob(s) && jobOf(s) === `${runId}.${stage}`);
    assert.equal(jobs.length, 1, `one span for the job of ${stage}`);
    assert.deepEqual([jobs[0]?.attributes['switchyard.run.id'], jobs[0]?.attributes['switchyard.stage']], [runId, stage]);
  }
  checkToolCalls(tree, stages.length);
  const modes = Object.fromEntries(tree.filter(isToolCall).map((s) => [s.attributes['switchyard.tool.service'], [s.attributes['switchyard.tool.mode'], s.attributes['switchyard.tool.attempt']]]));
  assert.deepEqual(modes, { search: ['sync', 1], outline: ['sync', 1], writing: ['stream', 1], editing: ['async', 1] });

  // Each job keeps its context in its options in Redis (bullmq-otel), so any worker that takes it up joins the trace.
  jobs.stop();
  assert.match(String(jobs.taken(`${runId}.polish`)?.opts.telemetry?.metadata), new RegExp(`"traceparent":"00-${traceId(root)}-`));
});

test('steps a step adds at run time join the run\'s trace: a map fanned out over an outline, started by POST /v1/pipelines/{name}/runs', async () => {
  const yaml = readFileSync(fileURLToPath(new URL('../../docs/pipelines/section-review.yaml', import.meta.url)), 'utf8');
  const put = await stack.json('/v1/pipelines/section-review', { method: 'PUT', headers: { 'content-type': 'application/yaml' }, body: yaml });
  assert.ok([200, 201].includes(put.status), JSON.stringify(put.body));
  tracing.reset();
  const runId = await startRun(stack, 'section-review', { topic: 'a tide clock' });
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const stages = run.stages.map((s) => s.name);
  assert.equal(stages.length, 6);

  const spans = await settledSpans([...stages, 'review'].map((stage) => `${runId}.${stage}`));
  const tree = oneTree(spans, requestSpan(spans, 'POST', '/v1/pipelines/:name/runs'));
  const fanOut = tree.find((s) => isJob(s) && jobOf(s) === `${runId}.review`);
  assert.ok(fanOut, 'the map step\'s own job is in the trace');
  const branches = tree.filter((s) => isJob(s) && String(jobOf(s)).startsWith(`${runId}.review.`));
  assert.equal(branches.length, 4);
  for (const branch of branches) assert.ok(descends(tree, branch, fanOut), `${String(jobOf(branch))} descends from the job that fanned out`);
  checkToolCalls(tree, stages.length);
});

test('the runs of a batch join the batch request\'s trace through the dispatcher\'s job', async () => {
  const created = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a robot baker' }, { topic: 'a moving island' }] }) });
  assert.equal(created.status, 202);
  const runs = await Promise.all(created.body.run_ids.map((id) => stack.waitForRun(id)));
  assert.deepEqual(runs.map((r) => r.status), ['completed', 'completed']);
  const jobIds = created.body.run_ids.flatMap((runId, i) => (runs[i] as unknown as RunBody).stages.map((s) => `${runId}.${s.name}`));

  const spans = await settledSpans([...jobIds, `dispatch.${created.body.batch_id}`]);
  const root = requestSpan(spans, 'POST', '/v1/batches');
  assert.equal(root.attributes['switchyard.batch.id'], created.body.batch_id);
  const tree = oneTree(spans, root);
  const dispatch = tree.find((s) => isJob(s) && jobOf(s) === `dispatch.${created.body.batch_id}`);
  assert.ok(dispatch, 'the dispatcher\'s job is in the trace');
  for (const id of jobIds) {
    const job = tree.find((s) => isJob(s) && jobOf(s) === id);
    assert.ok(job && descends(tree, job, dispatch), `${id} descends from the dispatcher's job`);
  }
  checkToolCalls(tree, jobIds.length);
});

test('a log line written inside a span carries its trace_id and span_id; one outside carries neither', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ name: 'test', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  logger.info({ run_id: 'run_a' }, 'outside');
  const ids = await inSpan('logging', {}, async (span) => {
    await new Promise((r) => setTimeout(r, 1));
    logger.info({ run_id: 'run_b' }, 'inside');
    logger.info('inside, no fields');
    return span.spanContext();
  });
  logger.info('outside again');
  assert.deepEqual(lines.map((l) => [l.msg, l.run_id, l.trace_id, l.span_id]), [
    ['outside', 'run_a', undefined, undefined],
    ['inside', 'run_b', ids.traceId, ids.spanId],
    ['inside, no fields', undefined, ids.traceId, ids.spanId],
    ['outside again', undefined, undefined, undefined],
  ]);
});

test("an agent run is one trace: a span per model turn's job with its model call, and a span per tool call's job over the tool's", async () => {
  const runId = await startRun(stack, 'research-agent', { topic: 'tide clocks' });
  const run = await finishedRun(stack, runId, 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const jobIds = [`${runId}.research`, `${runId}.research@t2`, `${runId}.research@t1c0`, `${runId}.research@t1c1`];
  const spans = await settledSpans(jobIds);
  const root = requestSpan(spans, 'POST', '/v1/pipelines/:name/runs');
  const tree = oneTree(spans, root);
  for (const id of jobIds) assert.equal(tree.filter((s) => isJob(s) && jobOf(s) === id).length, 1, `one span for the job ${id}`);
  const turns = tree.filter((s) => s.name === 'agent model turn');
  assert.deepEqual(turns.map((s) => s.attributes['switchyard.agent.turn']).sort(), [1, 2], 'a model-call span per turn');
  assert.deepEqual(turns.map((s) => s.attributes['switchyard.agent.tool_calls']).sort(), [0, 2]);
  assert.equal(tree.filter(isToolCall).length, 2, 'a client span per tool call');
});
