import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentLine, runMessage } from './run-messages.js';

const event = (type: string, data: Record<string, unknown>) => ({ id: '1-0', type, data: JSON.stringify(data) }) as Parameters<typeof runMessage>[1];

test('an agent turn reads as the calls it asked for or as its answer, with the tokens so far', () => {
  const usage = { prompt_tokens: 40, completion_tokens: 12 };
  assert.equal(agentLine('turn', { stage: 'research', turn: 1, tool_calls: 2, usage }), 'research turn 1: the model asked for 2 tool calls (52 tokens so far)');
  assert.equal(agentLine('turn', { stage: 'research', turn: 1, tool_calls: 1, usage }), 'research turn 1: the model asked for 1 tool call (52 tokens so far)');
  assert.equal(agentLine('turn', { stage: 'research', turn: 3, tool_calls: 0, usage }), 'research turn 3: the model answered (52 tokens so far)');
  assert.equal(agentLine('turn', { stage: 'research', turn: 3, tool_calls: 0 }), 'research turn 3: the model answered', 'no usage, no count');
});

test('a failed tool result quotes the start of why on one line, a good one only that it answered', () => {
  assert.equal(agentLine('tool_result', { stage: 's', turn: 2, tool: 'search', is_error: false, preview: '{"results":[]}' }), 's turn 2: search answered');
  const why = `error: the arguments\n\n  break the schema ${'x'.repeat(500)}`;
  const line = agentLine('tool_result', { stage: 's', turn: 2, tool: 'search', is_error: true, preview: why });
  assert.match(line, /^s turn 2: search failed: error: the arguments break the schema x+$/);
  assert.equal(line.length, 's turn 2: search failed: '.length + 120);
});

test('a run\'s agent events are log messages at info, a failed tool call at warning', () => {
  assert.equal(runMessage('run_1', event('tool_call', { stage: 's', turn: 1, call_id: 'c1', tool: 'search', arguments: '{}' }))?.data.message, 's turn 1: called search');
  assert.equal(runMessage('run_1', event('turn', { stage: 's', turn: 1, tool_calls: 1, usage: { prompt_tokens: 1, completion_tokens: 1 } }))?.level, 'info');
  const failed = runMessage('run_1', event('tool_result', { stage: 's', turn: 1, call_id: 'c1', tool: 'search', is_error: true, preview: 'error: no' }));
  assert.deepEqual([failed?.level, failed?.data.is_error, failed?.data.call_id], ['warning', true, 'c1']);
  assert.equal(runMessage('run_1', event('tool_result', { stage: 's', turn: 1, call_id: 'c1', tool: 'search', is_error: false, preview: 'ok' }))?.level, 'info');
});
