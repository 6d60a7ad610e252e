/**
 * What the crash-point tests check of the runs a killed process left (tests/system/crash-points.int.test.ts):
 * no recorded call made again, events once and in order, nothing left that retention will not remove.
 */
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { compareStreamIds } from '@switchyard/pipeline';
import { readSse } from '../../../services/orchestrator/src/testing/events.js';
import type { LedgerService } from '../../../services/orchestrator/src/testing/ledger-service.js';
import type { RunBody } from '../../../services/orchestrator/src/testing/pipelines.js';
import type { TestStack } from '../../../services/orchestrator/src/testing/stack.js';

/**
 * The run and the child runs it names, as the API shows them. A child named but not written yet
 * (its parent names it first) is left out: a child that never comes leaves its parent unfinished,
 * which the cases' own checks find.
 */
export async function runsOf(stack: TestStack, runId: string, child = false): Promise<RunBody[]> {
  const { status, body: run } = await stack.json<RunBody>(`/v1/runs/${runId}`);
  if (child && status === 404) return [];
  assert.equal(status, 200, `run ${runId}: ${JSON.stringify(run)}`);
  const children = run.stages.flatMap((s) => (s.child_run ? [s.child_run] : []));
  return [run, ...(await Promise.all(children.map((id) => runsOf(stack, id, true)))).flat()];
}

/** The ledger key a `note_fact` result names; other tools' results (an MCP tool's text) name none. */
function notedOf(content: string | undefined): string | undefined {
  try {
    return (JSON.parse(content ?? '{}') as { noted?: string }).noted;
  } catch {
    return undefined;
  }
}

/** Calls of a stage's tool made after the stage had recorded its result (none may be). */
export function callsAfterRecorded(ledger: LedgerService, tag: string, runs: readonly RunBody[]): string[] {
  const recordedAt = new Map<string, number>();
  for (const run of runs) {
    for (const stage of run.stages) {
      if (stage.status === 'completed' && stage.finished_at) recordedAt.set(`${tag}/${stage.name === 'note' ? 'leaf' : stage.name}`, Date.parse(stage.finished_at));
      // An agent's calls: recorded in its transcript, each with its time.
      for (const message of (stage as { agent?: { messages: { role: string; content?: string; at?: string }[] } }).agent?.messages ?? []) {
        const noted = message.role === 'tool' ? notedOf(message.content) : undefined;
        if (noted && message.at) recordedAt.set(noted, Date.parse(message.at));
      }
    }
  }
  return ledger.calls.filter((call) => call.startedAt > (recordedAt.get(call.key) ?? Infinity)).map((call) => call.key);
}

type AgentView = { turns: number; messages: { role: string; call_id?: string; tool_calls?: { id: string }[] }[] };
const agentOf = (stage: unknown) => (stage as { name: string; agent?: AgentView }).agent;

/** Events once each, in order, at most one completion per stage, one `turn` per recorded turn, one `tool_call` and one `tool_result` per recorded call. */
export async function checkEvents(stack: TestStack, run: RunBody): Promise<void> {
  const events = await readSse(await stack.request(`/v1/runs/${run.run_id}/events`), (event) => event.event === 'done');
  const ids = events.map((e) => e.id ?? '');
  assert.equal(new Set(ids).size, ids.length, `event ids once: ${ids.join(' ')}`);
  for (let i = 1; i < ids.length; i += 1) assert.ok(compareStreamIds(ids[i - 1] as string, ids[i] as string) < 0, `event ids in order: ${ids.join(' ')}`);
  const completions = events.filter((e) => e.event === 'stage').map((e) => JSON.parse(e.data) as { stage: string; status: string }).filter((e) => e.status === 'completed').map((e) => e.stage);
  assert.equal(new Set(completions).size, completions.length, `no stage completed twice: ${completions.join(' ')}`);
  const told = (type: string, key: (data: { stage: string; turn: number; call_id: string }) => string) => events.filter((e) => e.event === type).map((e) => key(JSON.parse(e.data) as { stage: string; turn: number; call_id: string })).sort();
  const turns = run.stages.flatMap((stage) => Array.from({ length: agentOf(stage)?.turns ?? 0 }, (_, i) => `${stage.name}/${i + 1}`)).sort();
  assert.deepEqual(told('turn', (d) => `${d.stage}/${d.turn}`), turns, 'each recorded turn told once by its turn event');
  const asked = run.stages.flatMap((stage) => (agentOf(stage)?.messages ?? []).flatMap((m) => (m.tool_calls ?? []).map((call) => call.id))).sort();
  assert.deepEqual(told('tool_call', (d) => d.call_id), asked, 'each recorded call told once by its tool_call event');
  const answered = run.stages.flatMap((stage) => (agentOf(stage)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.call_id ?? '')).sort();
  assert.deepEqual(told('tool_result', (d) => d.call_id), answered, 'each recorded call result told once by its tool_result event');
}

/**
 * What of a run or batch (`id`) is left in Redis that retention will not remove: a key of its own
 * without a TTL, or a BullMQ job of it not finished (the retention janitor removes finished ones).
 */
export async function leftovers(redis: Redis, id: string): Promise<string[]> {
  const left: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${id}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if ((await redis.pttl(key)) >= 0) continue;
      if (key.includes(':run:') || key.includes(':batch:')) left.push(`${key} (no TTL)`);
      else if ((await redis.type(key)) === 'hash' && !(await redis.hexists(key, 'finishedOn'))) left.push(`${key} (job not finished)`);
    }
  } while (cursor !== '0');
  return left;
}

/** Approves the run's calls as the inbox lists them, until stopped. */
export function approveAll(stack: TestStack, runId: string): { stop(): void } {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const { body } = await stack.json<{ items: { run_id: string; answer_url: string }[] }>('/v1/inbox');
      for (const item of body.items.filter((i) => i.run_id === runId)) {
        await stack.request(item.answer_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approve: true }) });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })().catch(() => undefined);
  return { stop: () => (stopped = true) };
}
