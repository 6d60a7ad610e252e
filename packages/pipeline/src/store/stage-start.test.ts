import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeStageStart } from './stage-start.js';

test('a start that moved its run from queued says so, with its request and its inputs, a skipped one as null', () => {
  const { start, moved } = decodeStageStart(['running', '1', '{"topic":"tides"}', '{"title":"T"}', ''], { inputs: ['outline', 'extra'], withRequest: true });
  assert.equal(moved, true);
  assert.deepEqual(start, { kind: 'started', attempt: 1, request: { topic: 'tides' }, inputs: { outline: { title: 'T' }, extra: null } });
  assert.equal(decodeStageStart(['started', '2'], { inputs: [], withRequest: false }).moved, false);
});

test('a stage done before, a run ended, a missing run and a need not done are told apart', () => {
  const asked = { inputs: ['search'], withRequest: false };
  assert.deepEqual(decodeStageStart(['done', '{"n":1}', '[1]'], asked).start, { kind: 'done', output: { n: 1 }, inputs: { search: [1] }, request: null });
  assert.deepEqual(decodeStageStart(['ended', 'cancelled'], asked).start, { kind: 'ended', status: 'cancelled' });
  assert.deepEqual(decodeStageStart(['missing'], asked).start, { kind: 'missing' });
  assert.deepEqual(decodeStageStart(['unready', 'search'], asked).start, { kind: 'unready', need: 'search' });
});

test("a branch's start answers its item after the request, and says so when the run has none stored", () => {
  const asked = { inputs: ['outline'], withRequest: true, withItem: true };
  const { start } = decodeStageStart(['started', '1', '{"topic":"tides"}', '{"section":"climax"}', '{"title":"T"}'], asked);
  assert.deepEqual(start, { kind: 'started', attempt: 1, request: { topic: 'tides' }, item: { value: { section: 'climax' } }, inputs: { outline: { title: 'T' } } });
  assert.deepEqual(decodeStageStart(['started', '1', 'null', '', '{}'], asked).start, { kind: 'started', attempt: 1, request: null, item: 'missing', inputs: { outline: {} } });
});
