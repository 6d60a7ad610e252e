/**
 * Concurrency keys through the whole stack: a pipeline's (per run) and a step's (per stage). What
 * ran at once is read from the runs' own records afterwards: each run's first stage start and last
 * stage end, each stage's own span.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { registerPipeline, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'concurrency-keys', workerConcurrency: 16 });
  stack.tools.services.search.faults.latencyMs = 60;
});
after(async () => {
  await stack.close();
});

interface Span {
  user: string;
  index: number;
  start: number;
  end: number;
}

/** The most spans of one user open at once. */
function mostAtOnce(spans: readonly Span[]): number {
  const edges = spans.flatMap((s) => [
    { at: s.start, step: 1 },
    { at: s.end, step: -1 },
  ]);
  // An end at the same instant as a start is counted first: the slot was handed on.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (open += edge.step));
  return most;
}

/** How far out of line a user's runs started: the largest gap between a run's place in line and its place in starting order. */
function mostOutOfLine(spans: readonly Span[]): number {
  const byStart = [...spans].sort((a, b) => a.start - b.start || a.index - b.index);
  const byLine = [...spans].sort((a, b) => a.index - b.index);
  return Math.max(...byLine.map((span, place) => Math.abs(byStart.indexOf(span) - place)));
}

async function runBatch(pipeline: string, items: Record<string, unknown>[]): Promise<RunBody[]> {
  const { status, body } = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline, items }) });
  assert.equal(status, 202, JSON.stringify(body));
  const runs = await Promise.all(body.run_ids.map((id) => stack.waitForRun(id, 120_000) as Promise<unknown> as Promise<RunBody>));
  for (const run of runs) assert.equal(run.status, 'completed', JSON.stringify(run.error));
  return runs;
}

test('a pipeline with a concurrency key of limit 2 never runs more than 2 runs of a user at once, and starts them in order', async () => {
  await registerPipeline(stack, {
    name: 'per-user',
    input: { type: 'object', required: ['user', 'n'], properties: { user: { type: 'string' }, n: { type: 'integer' } } },
    concurrency: { key: 'input.user', limit: 2 },
    steps: {
      look: { tool: 'search_relevant_information', args: { topic: "'story ' & $string(input.n)" } },
      again: { tool: 'search_relevant_information', needs: ['look'], args: { topic: "'again ' & $string(input.n)" } },
    },
  });
  const users = ['ann', 'bob', 'cy', 'dee'];
  const items = Array.from({ length: 40 }, (_, n) => ({ user: users[n % users.length], n }));
  const runs = await runBatch('per-user', items);
  const spans: Span[] = runs.map((run, i) => ({
    user: String(items[i]?.user),
    index: i,
    start: Math.min(...run.stages.map((s) => Date.parse(s.started_at ?? ''))),
    end: Math.max(...run.stages.map((s) => Date.parse(s.finished_at ?? ''))),
  }));
  const view = await stack.json<{ flow?: { concurrency?: { value: string; limit: number } } }>(`/v1/runs/${runs[1]?.run_id}`);
  assert.deepEqual(view.body.flow?.concurrency && { value: view.body.flow.concurrency.value, limit: view.body.flow.concurrency.limit }, { value: 'bob', limit: 2 });
  for (const user of users) {
    const own = spans.filter((s) => s.user === user);
    const most = mostAtOnce(own);
    const outOfLine = mostOutOfLine(own);
    console.log(`concurrency key ${user}: at most ${most} running at once (limit 2), out of line by at most ${outOfLine}`);
    assert.ok(most <= 2, `${user} had ${most} runs at once`);
    assert.ok(most === 2, `${user}'s runs used both places (the key limits, it does not serialise)`);
    assert.ok(outOfLine <= 1, `${user}'s runs started in order, but for the two let through together: out by ${outOfLine}`);
  }
  const all = mostAtOnce(spans.map((s) => ({ ...s, user: 'all' })));
  assert.ok(all > 2, `different users ran beside each other (${all} at once)`);
});

test('a step with a concurrency key of limit 1 runs one stage at a time per key, while other steps of the runs go on', async () => {
  await registerPipeline(stack, {
    name: 'per-region-step',
    input: { type: 'object', required: ['region', 'n'], properties: { region: { type: 'string' }, n: { type: 'integer' } } },
    steps: {
      free: { tool: 'search_relevant_information', args: { topic: "'free ' & $string(input.n)" } },
      guarded: { tool: 'search_relevant_information', concurrency: { key: 'input.region', limit: 1 }, args: { topic: "'guarded ' & $string(input.n)" } },
    },
  });
  const items = Array.from({ length: 12 }, (_, n) => ({ region: n % 2 === 0 ? 'eu' : 'us', n }));
  const runs = await runBatch('per-region-step', items);
  const stageSpans = (name: string) =>
    runs.map((run, i) => {
      const stage = run.stages.find((s) => s.name === name);
      return { user: String(items[i]?.region), index: i, start: Date.parse(stage?.started_at ?? ''), end: Date.parse(stage?.finished_at ?? '') };
    });
  for (const region of ['eu', 'us']) {
    const guarded = stageSpans('guarded').filter((s) => s.user === region);
    assert.equal(mostAtOnce(guarded), 1, `${region}'s guarded stages ran one at a time`);
  }
  assert.ok(mostAtOnce(stageSpans('free').map((s) => ({ ...s, user: 'all' }))) > 1, 'the unguarded step ran beside itself');
});

test("a run behind its concurrency key says so, and how many are ahead of it in the key's line", async (t) => {
  stack.tools.services.search.faults.latencyMs = 800;
  t.after(() => (stack.tools.services.search.faults.latencyMs = 60));
  await registerPipeline(stack, {
    name: 'one-at-a-time',
    input: { type: 'object', required: ['user'], properties: { user: { type: 'string' } } },
    concurrency: { key: 'input.user', limit: 1 },
    steps: { look: { tool: 'search_relevant_information', args: { topic: 'input.user' } } },
  });
  const { body } = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'one-at-a-time', items: [{ user: 'eve' }, { user: 'eve' }, { user: 'eve' }] }) });
  const third = body.run_ids[2];
  let seen: { reason: string; ahead?: number; holders?: number } | undefined;
  const deadline = Date.now() + 20_000;
  while (!seen && Date.now() < deadline) {
    const view = await stack.json<{ flow?: { waiting?: { reason: string; ahead?: number; holders?: number } } }>(`/v1/runs/${third}`);
    if (view.body.flow?.waiting?.reason === 'concurrency_key') seen = view.body.flow.waiting;
    else await new Promise((r) => setTimeout(r, 25));
  }
  assert.ok(seen, 'the third run was seen waiting behind its concurrency key');
  assert.equal(seen.holders, 1);
  assert.ok(seen.ahead === 0 || seen.ahead === 1, `its place in line: ${seen.ahead}`);
  await Promise.all(body.run_ids.map((id) => stack.waitForRun(id, 60_000)));
});

test("a run waiting for a person lets its key go: another run of the key runs meanwhile, and the waiting one takes the key again, in line, when answered", async () => {
  await registerPipeline(stack, {
    name: 'gated-review',
    input: { type: 'object', required: ['user', 'topic'], properties: { user: { type: 'string' }, topic: { type: 'string' } } },
    concurrency: { key: 'input.user', limit: 1 },
    steps: {
      draft: { tool: 'search_relevant_information', args: { topic: 'input.topic' } },
      review: { needs: ['draft'], wait: { signal: 'review', schema: { type: 'object', required: ['verdict'], properties: { verdict: { enum: ['accept', 'reject'] } } } } },
      publish: { needs: ['review'], tool: 'search_relevant_information', args: { topic: "'published ' & input.topic" } },
    },
    output: 'steps.review',
  });
  const start = async (topic: string) => (await stack.json<{ run_id: string }>('/v1/pipelines/gated-review/runs', { method: 'POST', body: JSON.stringify({ user: 'ada', topic }) })).body.run_id;
  const statusOf = async (runId: string) => (await stack.json<{ status: string }>(`/v1/runs/${runId}`)).body.status;
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const waiting = await start('first');
  await until(async () => (await statusOf(waiting)) === 'waiting', 'the first run waits for its review');
  const other = await start('second');
  await until(async () => (await statusOf(other)) === 'waiting', "the second run got the key while the first waited, and reached its own review");
  const answer = (runId: string) => stack.json(`/v1/runs/${runId}/signals/review`, { method: 'POST', body: JSON.stringify({ verdict: 'accept' }) });
  assert.equal((await answer(waiting)).status, 202);
  const first = (await stack.waitForRun(waiting, 30_000)) as unknown as RunBody;
  assert.equal(first.status, 'completed', JSON.stringify(first.error));
  assert.equal((await answer(other)).status, 202);
  const second = (await stack.waitForRun(other, 30_000)) as unknown as RunBody;
  assert.equal(second.status, 'completed', JSON.stringify(second.error));
});
