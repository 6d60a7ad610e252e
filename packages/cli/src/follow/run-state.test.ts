import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyRunEvent, applyRunView, hasEnded, initialRunState, liveText, stageLabel, wordsSoFar, type RunState } from './run-state.js';

const fold = (events: [string, unknown][], from: RunState = initialRunState()) => events.reduce((state, [type, data]) => applyRunEvent(state, type, data), from);

test('stage events name the stages running now, and a run with a running stage is running', () => {
  const state = fold([
    ['stage', { stage: 'search', status: 'running', attempt: 1 }],
    ['stage', { stage: 'search', status: 'completed', attempt: 1 }],
    ['stage', { stage: 'write.climax', status: 'running', attempt: 1 }],
    ['stage', { stage: 'write.conclusion', status: 'retrying', attempt: 2 }],
  ]);
  assert.equal(state.status, 'running');
  assert.deepEqual(state.running, ['write.climax', 'write.conclusion']);
  assert.equal(stageLabel(state), '2 stages');
  assert.equal(stageLabel(fold([['stage', { stage: 'write.climax', status: 'completed' }]], state)), 'write.conclusion');
});

test('a completed stage\'s progress sets the percentage, and a stage event without one keeps it', () => {
  const state = fold([['stage', { stage: 'outline', status: 'completed', progress: { percent: 43, completed_stages: 3, total_stages: 7 } }]]);
  assert.equal(state.progress, 43);
  assert.equal(fold([['stage', { stage: 'polish', status: 'running' }]], state).progress, 43);
});

test('streamed content counts words per section, and a reset drops what its section had', () => {
  const state = fold([
    ['content', { stage: 'write.climax', section: 'climax', chunk: 'The storm ' }],
    ['content', { stage: 'write.climax', section: 'climax', chunk: 'broke at last.' }],
    ['content', { stage: 'write.conclusion', section: 'conclusion', chunk: 'Morning came.' }],
  ]);
  assert.equal(wordsSoFar(state), 7);
  assert.equal(wordsSoFar(fold([['reset', { stage: 'write.climax', section: 'climax' }]], state)), 2);
});

test('done ends the run with its status; a completed run is at 100% and a failed one keeps its error', () => {
  const running = fold([['stage', { stage: 'write.climax', status: 'completed', progress: { percent: 86 } }], ['stage', { stage: 'polish', status: 'running' }]]);
  const completed = fold([['done', { status: 'completed', result: {} }]], running);
  assert.deepEqual([completed.status, completed.progress, completed.running, hasEnded(completed)], ['completed', 100, [], true]);
  const failed = fold([['error', { stage: 'polish', message: 'HTTP 503', will_retry: true }], ['done', { status: 'failed', error: { code: 'tool_failed', message: 'editing service gave up' } }]], running);
  assert.deepEqual([failed.status, failed.progress, failed.error], ['failed', 86, 'editing service gave up']);
  assert.equal(fold([['error', { stage: 'polish', message: 'HTTP 503', will_retry: true }]], running).error, 'polish: HTTP 503 (retrying)');
});

test('events of unknown types or shapes leave the state as it was', () => {
  const state = initialRunState();
  assert.equal(applyRunEvent(state, 'heartbeat', {}), state);
  assert.equal(applyRunEvent(state, 'stage', 'not json'), state);
  assert.equal(applyRunEvent(state, 'stage', null), state);
});

test('a polled run view gives status, progress and running stages, keeping the streamed text', () => {
  const streamed = fold([['content', { section: 'climax', chunk: 'one two three' }]]);
  const state = applyRunView(streamed, { status: 'running', progress: 57, stages: [{ name: 'search', status: 'completed' }, { name: 'polish', status: 'running' }], error: null });
  assert.deepEqual([state.status, state.progress, state.running, wordsSoFar(state)], ['running', 57, ['polish'], 3]);
});

test('the live text is the end of the section written to last, on one line, and none once the run has ended', () => {
  const state = fold([
    ['content', { section: 'climax', chunk: 'The storm\nbroke ' }],
    ['content', { section: 'conclusion', chunk: 'Morning   came at last.' }],
  ]);
  assert.equal(liveText(state), 'Morning came at last.');
  assert.equal(liveText(state, 10), '… at last.');
  assert.equal(liveText(fold([['content', { section: 'climax', chunk: 'again.' }]], state)), 'The storm broke again.');
  assert.equal(liveText(fold([['done', { status: 'completed' }]], state)), undefined);
  assert.equal(liveText(initialRunState()), undefined);
});
