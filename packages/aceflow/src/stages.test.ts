import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODES, STAGE_DEPENDENCIES, STAGE_IDS, isStageId, optionalInputs, requiredInputs, stageAfter, stagesForMode } from './stages.js';

test('the complete mode has all eight stages in the seed order', () => {
  assert.deepEqual(stagesForMode('complete'), STAGE_IDS);
  assert.equal(STAGE_IDS.length, 8);
});

test('the dependencies are exactly the seed\'s', () => {
  assert.deepEqual(STAGE_DEPENDENCIES, {
    s1_user_story: [],
    s2_tasks_group: ['s1_user_story'],
    s3_testcases: ['s1_user_story', 's2_tasks_group'],
    s4_implementation: ['s2_tasks_group', 's3_testcases'],
    s5_test_report: ['s4_implementation'],
    s6_codereview: ['s4_implementation', 's5_test_report'],
    s7_demo_script: ['s4_implementation'],
    s8_summary_report: ['s5_test_report', 's6_codereview'],
  });
});

test('standard and minimal pick stages in flow order, and every stage after the first still depends on one of its mode', () => {
  assert.deepEqual(stagesForMode('standard'), ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report', 's6_codereview', 's8_summary_report']);
  assert.deepEqual(stagesForMode('minimal'), ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report']);
  for (const mode of MODES) {
    const stages = stagesForMode(mode);
    assert.deepEqual([...stages].sort((a, b) => STAGE_IDS.indexOf(a) - STAGE_IDS.indexOf(b)), [...stages], `${mode} is in flow order`);
    stages.forEach((stage, index) => {
      const required = requiredInputs(stage, mode);
      for (const dependency of required) assert.ok(stages.indexOf(dependency) < index, `${mode}: ${dependency} comes before ${stage}`);
      if (index > 0) assert.ok(required.length > 0, `${mode}: ${stage} depends on an earlier stage of the mode`);
    });
  }
});

test('dependencies are restricted to the stages the mode includes', () => {
  assert.deepEqual(requiredInputs('s4_implementation', 'complete'), ['s2_tasks_group', 's3_testcases']);
  assert.deepEqual(requiredInputs('s4_implementation', 'standard'), ['s2_tasks_group']);
  assert.deepEqual(requiredInputs('s8_summary_report', 'standard'), ['s5_test_report', 's6_codereview']);
  assert.deepEqual(requiredInputs('s5_test_report', 'minimal'), ['s4_implementation']);
});

test('optional inputs are the indirect ancestors within the mode, never a required one', () => {
  assert.deepEqual(optionalInputs('s4_implementation', 'complete'), ['s1_user_story']);
  assert.deepEqual(optionalInputs('s8_summary_report', 'complete'), ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation']);
  assert.deepEqual(optionalInputs('s4_implementation', 'minimal'), ['s1_user_story']);
  assert.deepEqual(optionalInputs('s1_user_story', 'complete'), []);
});

test('the stage after the last of a mode, or after a stage outside it, is null', () => {
  assert.equal(stageAfter('s1_user_story', 'complete'), 's2_tasks_group');
  assert.equal(stageAfter('s2_tasks_group', 'standard'), 's4_implementation');
  assert.equal(stageAfter('s8_summary_report', 'complete'), null);
  assert.equal(stageAfter('s5_test_report', 'minimal'), null);
  assert.equal(stageAfter('s3_testcases', 'minimal'), null);
});

test('only the eight ids are stage ids', () => {
  assert.ok(isStageId('s5_test_report'));
  for (const value of ['s9_other', '../s1_user_story', 's1_user_story/', 'S1_USER_STORY', '', 5, null]) assert.equal(isStageId(value), false, String(value));
});
