/**
 * The contention bench's scenarios for priorities, fair shares and concurrency keys: each starts
 * a stack of its own (reference services, orchestrator, workers in this process, a key prefix of
 * its own) on the run's Redis, and reads what happened from the runs' own records.
 */
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import type { ContentionEnv, ContentionScenario } from './contention-types.js';

const KEY_B = 'bench-key-b-0123456789';
const KEY_C = 'bench-key-c-0123456789';
const round = (n: number, places = 3) => Math.round(n * 10 ** places) / 10 ** places;

interface RunTimes {
  run_id: string;
  status: string;
  created: number;
  started: number;
  ended: number;
}

async function withStack<T>(env: ContentionEnv, label: string, work: (stack: TestStack) => Promise<T>): Promise<T> {
  const stack = await startTestStack({ label, redisUrl: env.redisUrl, workerConcurrency: env.sizes.concurrency, apiKeys: [TEST_API_KEY, KEY_B, KEY_C] });
  try {
    return await work(stack);
  } finally {
    await stack.close();
  }
}

async function register(stack: TestStack, definition: Record<string, unknown> & { name: string }): Promise<void> {
  const { status, body } = await stack.json(`/v1/pipelines/${definition.name}`, { method: 'PUT', body: JSON.stringify(definition) });
  if (status !== 201 && status !== 200) throw new Error(`PUT ${definition.name} answered ${status}: ${JSON.stringify(body)}`);
}

const SHORT = { name: 'short', input: { type: 'object', properties: { n: { type: 'integer' }, user: { type: 'string' } } }, steps: { look: { tool: 'search_relevant_information', args: { topic: "'item ' & $string(input.n)" } } } };
/** Three steps in a row: a single run whose time alone is several hops, not one. */
const CHAIN = {
  name: 'chain',
  input: { type: 'object', properties: { n: { type: 'integer' } } },
  steps: {
    a: { tool: 'search_relevant_information', args: { topic: "'a ' & $string(input.n)" } },
    b: { tool: 'search_relevant_information', needs: ['a'], args: { topic: "'b ' & $string(input.n)" } },
    c: { tool: 'search_relevant_information', needs: ['b'], args: { topic: "'c ' & $string(input.n)" } },
  },
};

async function postBatch(stack: TestStack, key: string, pipeline: string, items: unknown[]): Promise<{ batch_id: string; run_ids: string[] }> {
  const { status, body } = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ pipeline, items }) });
  if (status !== 202) throw new Error(`POST /v1/batches answered ${status}: ${JSON.stringify(body)}`);
  return body;
}


async function startOne(stack: TestStack, key: string, pipeline: string, input: unknown): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>(`/v1/pipelines/${pipeline}/runs`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(input) });
  if (status !== 202) throw new Error(`POST /v1/pipelines/${pipeline}/runs answered ${status}: ${JSON.stringify(body)}`);
  return body.run_id;
}

/** Waits (a look every half second) until every run of a batch has ended, then reads each run's times once. */
async function endedBatch(stack: TestStack, batch: { batch_id: string; run_ids: string[] }, timeoutMs: number): Promise<RunTimes[]> {
  const deadline = Date.now() + timeoutMs;
  while ((await stack.json<{ status: string }>(`/v1/batches/${batch.batch_id}?limit=1`)).body.status !== 'done') {
    if (Date.now() > deadline) throw new Error(`batch ${batch.batch_id} had not ended after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return endedRuns(stack, batch.run_ids, 60_000);
}

/** Each run's times from its record, once every one has ended (polled a page of 200 at a time). */
async function endedRuns(stack: TestStack, runIds: readonly string[], timeoutMs: number): Promise<RunTimes[]> {
  const deadline = Date.now() + timeoutMs;
  const ended = new Map<string, RunTimes>();
  while (ended.size < runIds.length) {
    if (Date.now() > deadline) throw new Error(`${runIds.length - ended.size} of ${runIds.length} runs had not ended after ${timeoutMs} ms`);
    const left = runIds.filter((id) => !ended.has(id)).slice(0, 200);
    const views = await Promise.all(left.map((id) => stack.json<{ status: string; created_at: string; updated_at: string; stages: { started_at: string | null; finished_at: string | null }[] }>(`/v1/runs/${id}`)));
    views.forEach(({ body }, i) => {
      if (!['completed', 'failed', 'cancelled'].includes(body.status)) return;
      const starts = body.stages.map((s) => Date.parse(s.started_at ?? '')).filter(Number.isFinite);
      ended.set(left[i] as string, { run_id: left[i] as string, status: body.status, created: Date.parse(body.created_at), started: Math.min(...starts), ended: Date.parse(body.updated_at) });
    });
    if (ended.size < runIds.length) await new Promise((r) => setTimeout(r, 100));
  }
  return runIds.map((id) => ended.get(id) as RunTimes);
}

const took = (runs: readonly RunTimes[]) => Math.max(...runs.map((r) => r.ended)) - Math.min(...runs.map((r) => r.created));

/** A single run started while another key's batch is queued, against the same run alone. */
export const singleBehindBatchScenario: ContentionScenario = {
  name: 'single_run_behind_batch',
  run: (env) =>
    withStack(env, 'contention-single', async (stack) => {
      stack.tools.services.search.faults.latencyMs = env.sizes.toolMs;
      await register(stack, SHORT);
      await register(stack, CHAIN);
      const alone: number[] = [];
      for (let i = 0; i < 3; i += 1) alone.push(took(await endedRuns(stack, [await startOne(stack, KEY_B, 'chain', { n: i })], 30_000)));
      const { batch_id: batchId, run_ids: batch } = await postBatch(stack, TEST_API_KEY, 'short', Array.from({ length: env.sizes.batch }, (_, n) => ({ n })));
      env.log(`batch of ${batch.length} accepted; the single run starts behind it`);
      // Until the dispatcher has queued a good part of it.
      await new Promise((r) => setTimeout(r, 1000));
      const behind = await endedRuns(stack, [await startOne(stack, KEY_B, 'chain', { n: 99 })], 600_000);
      // The batch is not waited for: how far it had got shows it held every slot meanwhile.
      const batchDone = (await stack.json<{ counts: Record<string, number> }>(`/v1/batches/${batchId}?limit=1`)).body;
      const aloneMs = [...alone].sort((a, b) => a - b)[1] as number;
      const ratio = took(behind) / aloneMs;
      return {
        measured_as: `a 3-step run's creation → end, from its record: alone (median of 3), then started by another key 1 s after a batch of one-step runs was accepted; both at the default priorities (single run 3, batch 6); each step a ${env.sizes.toolMs} ms tool call, ${env.sizes.concurrency} worker slots per queue`,
        alone_ms: aloneMs,
        behind_batch_ms: took(behind),
        batch_runs: batch.length,
        batch_counts_when_it_ended: batchDone.counts,
        ratio: round(ratio),
        target_max: 2,
        met: ratio <= 2,
      };
    }),
};

/** Two keys' batches a second apart, then a third key's small batch, against the small batch alone. */
export const fairSharesScenario: ContentionScenario = {
  name: 'fair_shares',
  run: (env) =>
    withStack(env, 'contention-shares', async (stack) => {
      stack.tools.services.search.faults.latencyMs = env.sizes.toolMs;
      await register(stack, SHORT);
      const small = (label: number) => Array.from({ length: 10 }, (_, n) => ({ n: label + n }));
      const smallAlone = took(await endedBatch(stack, await postBatch(stack, KEY_C, 'short', small(0)), 60_000));
      const items = Array.from({ length: env.sizes.shareBatch }, (_, n) => ({ n }));
      const first = await postBatch(stack, TEST_API_KEY, 'short', items);
      await new Promise((r) => setTimeout(r, 1000));
      const second = await postBatch(stack, KEY_B, 'short', items);
      await new Promise((r) => setTimeout(r, 1000));
      const third = await postBatch(stack, KEY_C, 'short', small(100));
      const c = await endedBatch(stack, third, 600_000);
      const [a, b] = [await endedBatch(stack, first, 1_800_000), await endedBatch(stack, second, 1_800_000)];
      // While both ran: from the second's first completion to the first of the two to finish.
      const from = Math.min(...b.map((r) => r.ended));
      const to = Math.min(Math.max(...a.map((r) => r.ended)), Math.max(...b.map((r) => r.ended)));
      const inWindow = (runs: readonly RunTimes[]) => runs.filter((r) => r.ended >= from && r.ended <= to).length;
      const [doneA, doneB] = [inWindow(a), inWindow(b)];
      const shareA = doneA / Math.max(1, doneA + doneB);
      const thirdRatio = took(c) / smallAlone;
      return {
        measured_as: "two keys' batches of short runs accepted 1 s apart, a third key's batch of 10 1 s later: completions of each in the window where both ran (from the records' end times), and the batch of 10's creation → last end against the same batch alone",
        window_s: round((to - from) / 1000, 2),
        completions_in_window: { first: doneA, second: doneB },
        first_share: round(shareA),
        share_target: '0.5 ± 0.1',
        share_met: Math.abs(shareA - 0.5) <= 0.1,
        third_alone_ms: smallAlone,
        third_behind_ms: took(c),
        third_ratio: round(thirdRatio),
        third_target_max: 2,
        third_met: thirdRatio <= 2,
        met: Math.abs(shareA - 0.5) <= 0.1 && thirdRatio <= 2,
      };
    }),
};

/**
 * Two batches of one key a second apart, with another key's batch between them: while all three
 * run, the key's two batches share its part (each about a quarter of the completions) and the other
 * key keeps its half. The first batch and the other key's are twice the second's, so that all three
 * are still running once the second's first runs end (it starts behind DISPATCH_AHEAD rounds of the
 * first's).
 */
export const batchesOfOneKeyScenario: ContentionScenario = {
  name: 'batches_of_one_key',
  run: (env) =>
    withStack(env, 'contention-batches', async (stack) => {
      stack.tools.services.search.faults.latencyMs = env.sizes.toolMs;
      await register(stack, SHORT);
      const items = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));
      const first = await postBatch(stack, TEST_API_KEY, 'short', items(2 * env.sizes.shareBatch));
      await new Promise((r) => setTimeout(r, 1000));
      const other = await postBatch(stack, KEY_B, 'short', items(2 * env.sizes.shareBatch));
      await new Promise((r) => setTimeout(r, 1000));
      const second = await postBatch(stack, TEST_API_KEY, 'short', items(env.sizes.shareBatch));
      const [a, b, o] = [await endedBatch(stack, first, 1_800_000), await endedBatch(stack, second, 1_800_000), await endedBatch(stack, other, 1_800_000)];
      // While all three ran: from the second batch's first completion to the first of the three to finish.
      const from = Math.min(...b.map((r) => r.ended));
      const to = Math.min(...[a, b, o].map((runs) => Math.max(...runs.map((r) => r.ended))));
      const inWindow = (runs: readonly RunTimes[]) => runs.filter((r) => r.ended >= from && r.ended <= to).length;
      const [doneA, doneB, doneO] = [inWindow(a), inWindow(b), inWindow(o)];
      const secondShare = doneB / Math.max(1, doneA + doneB);
      const otherShare = doneO / Math.max(1, doneA + doneB + doneO);
      const met = Math.abs(secondShare - 0.5) <= 0.1 && Math.abs(otherShare - 0.5) <= 0.1;
      return {
        measured_as: `one key's batch of ${2 * env.sizes.shareBatch} short runs, another key's of ${2 * env.sizes.shareBatch} 1 s later, the first key's second batch of ${env.sizes.shareBatch} 1 s after that: completions of each in the window where all three ran (from the records' end times); the second batch's share of its key's, and the other key's share of all`,
        window_s: round((to - from) / 1000, 2),
        completions_in_window: { first: doneA, second: doneB, other_key: doneO },
        second_share_of_key: round(secondShare),
        other_key_share: round(otherShare),
        share_target: '0.5 ± 0.1 each',
        met,
      };
    }),
};

/** A concurrency key of limit 2 over the runs of a number of users. */
export const concurrencyKeyScenario: ContentionScenario = {
  name: 'concurrency_key',
  run: (env) =>
    withStack(env, 'contention-keys', async (stack) => {
      stack.tools.services.search.faults.latencyMs = env.sizes.toolMs;
      const limit = 2;
      await register(stack, { ...SHORT, name: 'per-user', concurrency: { key: 'input.user', limit } });
      const items = Array.from({ length: env.sizes.userRuns }, (_, n) => ({ n, user: `user-${n % env.sizes.users}` }));
      const runs = await endedBatch(stack, await postBatch(stack, TEST_API_KEY, 'per-user', items), 600_000);
      let most = 0;
      let outOfOrder = 0;
      for (let u = 0; u < env.sizes.users; u += 1) {
        const own = runs.filter((_, i) => items[i]?.user === `user-${u}`);
        const edges = own.flatMap((r) => [
          { at: r.started, step: 1 },
          { at: r.ended, step: -1 },
        ]);
        edges.sort((x, y) => x.at - y.at || x.step - y.step);
        let open = 0;
        for (const edge of edges) most = Math.max(most, (open += edge.step));
        // In order: no run starts before one queued ahead of it, but for those let through together (limit).
        own.forEach((run, place) => {
          const startedBefore = own.filter((other) => other.started < run.started).length;
          if (Math.abs(startedBefore - place) >= limit) outOfOrder += 1;
        });
      }
      return {
        measured_as: `a batch of runs of ${env.sizes.users} users under a concurrency key of limit ${limit}: the most of one user's runs between their first stage start and their end at once, and runs started out of line by ${limit} places or more, from the records`,
        runs: runs.length,
        failed: runs.filter((r) => r.status !== 'completed').length,
        most_running_per_user: most,
        limit,
        out_of_order: outOfOrder,
        took_s: round(took(runs) / 1000, 1),
        met: most <= limit && outOfOrder === 0,
      };
    }),
};
