/**
 * An agent's turns and call results are written with the events that tell them, in one script call
 * each, so that a crash leaves both or neither; and the transcript reads back whole however many
 * turns its reader expected.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { RunStore } from './run-store.js';
import { AgentTranscripts, type AgentTurnRecord } from './agent-transcript.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

async function agentRun(label: string): Promise<{ store: RunStore; transcripts: AgentTranscripts; runId: string; key: string; events: string }> {
  const store = new RunStore({ redis, prefix: uniquePrefix(label) });
  const runId = await store.createRun({ kind: 'pipeline', request: {}, stages: ['think'] });
  await store.transition({ runId, from: ['queued'], to: 'running' });
  return { store, transcripts: new AgentTranscripts(redis), runId, key: store.keys.run(runId), events: store.keys.events(runId) };
}

const turnRecord = (n: number, calls: number): AgentTurnRecord => ({
  content: `turn ${n}`,
  tool_calls: Array.from({ length: calls }, (_, i) => ({ id: `c${n}.${i}`, tool: 'note_fact', arguments: '{}' })),
  usage: { prompt_tokens: 10, completion_tokens: 2 },
  at: new Date().toISOString(),
});

const toldTurn = (n: number, calls: number) => [{ type: 'turn' as const, data: { stage: 'think', turn: n, tool_calls: calls, usage: { prompt_tokens: 10 * n, completion_tokens: 2 * n } } }, ...Array.from({ length: calls }, (_, i) => ({ type: 'tool_call' as const, data: { stage: 'think', turn: n, call_id: `c${n}.${i}`, tool: 'note_fact', arguments: '{}' } }))];

async function eventTypes(events: string): Promise<string[]> {
  return (await redis.xrange(events, '-', '+')).map(([, fields]) => fields[1] ?? '');
}

test('a turn is recorded with its turn and tool_call events, and a turn recorded already writes neither again', async () => {
  const { transcripts, key, events } = await agentRun('transcript-turn');
  assert.equal(await transcripts.recordTurn({ key, events, stage: 'think', turn: 1, record: turnRecord(1, 2), told: toldTurn(1, 2) }), 'recorded');
  assert.deepEqual(await eventTypes(events), ['turn', 'tool_call', 'tool_call']);
  assert.equal(await transcripts.recordTurn({ key, events, stage: 'think', turn: 1, record: turnRecord(1, 2), told: toldTurn(1, 2) }), 'exists');
  assert.equal(await transcripts.recordTurn({ key, events, stage: 'think', turn: 3, record: turnRecord(3, 0), told: toldTurn(3, 0) }), 'gap');
  assert.deepEqual(await eventTypes(events), ['turn', 'tool_call', 'tool_call']);
});

test("a call's result is recorded once with its tool_result event, and none is written for a run that is gone", async () => {
  const { store, transcripts, runId, key, events } = await agentRun('transcript-result');
  const record = { call_id: 'c1.0', tool: 'note_fact', content: 'ok', is_error: false, at: new Date().toISOString() };
  const event = { stage: 'think', turn: 1, call_id: 'c1.0', tool: 'note_fact', is_error: false, preview: 'ok' };
  assert.equal(await transcripts.recordResult({ key, events, stage: 'think', turn: 1, index: 0, record, event }), true);
  assert.equal(await transcripts.recordResult({ key, events, stage: 'think', turn: 1, index: 0, record: { ...record, content: 'second' }, event }), false);
  assert.deepEqual(await eventTypes(events), ['tool_result']);
  await redis.del(key, events);
  const gone = store.keys.run(`${runId}x`);
  assert.equal(await transcripts.recordResult({ key: gone, events: `${gone}:events`, stage: 'think', turn: 1, index: 0, record, event }), false);
  assert.equal(await redis.exists(gone, `${gone}:events`), 0, 'no hash or stream is made for a run that is gone');
});

test('the transcript reads back whole whether its reader expected fewer turns than recorded, as many, or more', async () => {
  const { transcripts, key, events } = await agentRun('transcript-read');
  await transcripts.open({ key, stage: 'think', model: 'scripted', instructions: null, prompt: 'go' });
  for (const n of [1, 2, 3]) {
    assert.equal(await transcripts.recordTurn({ key, events, stage: 'think', turn: n, record: turnRecord(n, n === 3 ? 0 : 1), told: toldTurn(n, n === 3 ? 0 : 1) }), 'recorded');
    if (n < 3) await transcripts.recordResult({ key, events, stage: 'think', turn: n, index: 0, record: { call_id: `c${n}.0`, tool: 'note_fact', content: `r${n}`, is_error: false, at: 'now' }, event: { stage: 'think', turn: n, call_id: `c${n}.0`, tool: 'note_fact', is_error: false, preview: `r${n}` } });
  }
  await transcripts.nudge({ key, stage: 'think', turn: 2, text: 'fit the schema' });
  const whole = await transcripts.read(key, 'think');
  assert.deepEqual(whole.turns.map((t) => t.content), ['turn 1', 'turn 2', 'turn 3']);
  assert.deepEqual(whole.results.map((r) => r.map((x) => x?.content)), [['r1'], ['r2'], []]);
  assert.deepEqual(whole.nudges, [undefined, 'fit the schema', undefined]);
  assert.deepEqual(whole.opening, { instructions: null, prompt: 'go' });
  assert.deepEqual(whole.usage, { prompt_tokens: 30, completion_tokens: 6 });
  for (const expected of [1, 2, 3, 4, 9]) assert.deepEqual(await transcripts.read(key, 'think', expected), whole, `expecting ${expected} turns`);
});
