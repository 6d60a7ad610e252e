import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instructionsFileName, nextPhaseType, reportedPassed, type FinishedPhase } from './phases.js';

test('phases follow UNDERSTANDING → PLANNING → IMPLEMENTING → VALIDATION, then RETROSPECTIVE or FIXING', () => {
  const cases: [FinishedPhase | undefined, string][] = [
    [undefined, 'UNDERSTANDING'],
    [{ type: 'UNDERSTANDING' }, 'PLANNING'],
    [{ type: 'PLANNING' }, 'IMPLEMENTING'],
    [{ type: 'IMPLEMENTING' }, 'VALIDATION'],
    [{ type: 'VALIDATION', passed: true }, 'RETROSPECTIVE'],
    [{ type: 'VALIDATION', passed: false }, 'FIXING'],
    [{ type: 'FIXING' }, 'VALIDATION'],
    [{ type: 'RETROSPECTIVE' }, 'done'],
  ];
  for (const [last, expected] of cases) assert.equal(nextPhaseType(last), expected, `after ${JSON.stringify(last)}`);
});

test('a validation with no recorded outcome is treated as failed, so it is fixed rather than skipped', () => {
  assert.equal(nextPhaseType({ type: 'VALIDATION' }), 'FIXING');
});

test('instruction files are named by two-digit order and lower-case type', () => {
  assert.equal(instructionsFileName(1, 'UNDERSTANDING'), '01_understanding_instructions.md');
  assert.equal(instructionsFileName(12, 'RETROSPECTIVE'), '12_retrospective_instructions.md');
});

test('only a reported {passed} result counts as a validation outcome', () => {
  assert.equal(reportedPassed({ result: '{"passed":true}' }), true);
  assert.equal(reportedPassed({ result: '{"passed":false}' }), false);
  assert.equal(reportedPassed({ result: 'null' }), undefined);
  assert.equal(reportedPassed({}), undefined);
});
