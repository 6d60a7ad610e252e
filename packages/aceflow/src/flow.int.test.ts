import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createAceflowEngine, type AceflowEngine } from './engine.js';
import type { ProjectRef } from './inputs.js';
import { stagesForMode, type StageId } from './stages.js';
import { TemplateStore } from './templates.js';
import { expectError, expectSuccess, fillTemplate, scratchDir } from './test-support.js';

let redis: Redis;
let engine: AceflowEngine;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
const templates = new TemplateStore();

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  scratch = await scratchDir('flow');
  engine = createAceflowEngine({ redis, prefix: uniquePrefix('aceflow-flow'), workspaceRoot: path.join(scratch.dir, 'root') });
});
after(async () => {
  await redis.quit();
  await scratch.remove();
});

const ANALYSIS = { project_info: { name: 'Flow', tech_stack: ['TypeScript'], file_count: 3 }, test_metrics: { test_coverage_percent: 80 } };
const filled = async (stage: StageId) => fillTemplate((await templates.get(stage)).content);
const save = async (project: ProjectRef, stage: StageId, content?: string) =>
  expectSuccess('save_output', await engine.stage('save_output', stage, { content: content ?? (await filled(stage)) }, project));

test('next refuses to leave a stage whose output is not saved, then moves to the following stage', async () => {
  const project = { name: 'next' };
  const early = expectError(await engine.stage('next', undefined, undefined, project), 'DEPENDENCY_MISSING');
  assert.deepEqual(early.error_details.missing_dependencies, ['s1_user_story']);
  await save(project, 's1_user_story');
  const moved = expectSuccess('next', await engine.stage('next', undefined, undefined, project));
  assert.deepEqual(moved.transition, { from_stage: 's1_user_story', to_stage: 's2_tasks_group', progress_update: 13 });
  assert.match(moved.next_actions[0] ?? '', /prepare_data", stage="s2_tasks_group"/);
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.deepEqual([status.flow.current_stage, status.flow.current_stage_status, status.flow.next_stage], ['s2_tasks_group', 'pending', 's3_testcases']);
});

test('next at the last stage of the mode is MISSING_STAGE', async () => {
  const project = { name: 'to-the-end', mode: 'minimal' as const };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, ANALYSIS, project));
  for (const stage of stagesForMode('minimal')) {
    expectSuccess('prepare_data', await engine.stage('prepare_data', stage, undefined, project));
    await save(project, stage);
    const result = expectSuccess('validate', await engine.stage('validate', undefined, undefined, project)).validation_result;
    assert.deepEqual([result.is_valid, result.completeness_score], [true, 1], `${stage} validates`);
    if (stage === 's5_test_report') break;
    expectSuccess('next', await engine.stage('next', undefined, undefined, project));
  }
  const error = expectError(await engine.stage('next', undefined, undefined, project), 'MISSING_STAGE');
  assert.equal(error.error_details.current_stage, 's5_test_report');
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.deepEqual([status.flow.progress_percentage, status.flow.next_stage, status.flow.estimated_remaining_time], [100, null, null]);
});

test('in the standard mode implementation follows the tasks directly, since test cases are not part of it', async () => {
  const project = { name: 'standard', mode: 'standard' as const };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, ANALYSIS, project));
  await save(project, 's1_user_story');
  expectSuccess('next', await engine.stage('next', undefined, undefined, project));
  await save(project, 's2_tasks_group');
  const moved = expectSuccess('next', await engine.stage('next', undefined, undefined, project));
  assert.equal(moved.transition.to_stage, 's4_implementation');
  const prepared = expectSuccess('prepare_data', await engine.stage('prepare_data', 's4_implementation', undefined, project));
  assert.deepEqual(prepared.data_package.stage_dependencies.required_inputs, ['s2_tasks_group']);
  assert.deepEqual(Object.keys(prepared.data_package.previous_outputs), ['s2_tasks_group', 's1_user_story']);
});

test('goto jumps back freely, forward only when the target\'s inputs are saved, and answers like next', async () => {
  const project = { name: 'goto' };
  await save(project, 's1_user_story');
  await save(project, 's2_tasks_group');
  const forward = expectSuccess('goto', await engine.stage('goto', 's3_testcases', undefined, project));
  assert.deepEqual(forward.transition, { from_stage: 's1_user_story', to_stage: 's3_testcases', progress_update: 25 });
  assert.ok(forward.next_actions.length > 0);
  const blocked = expectError(await engine.stage('goto', 's5_test_report', undefined, project), 'DEPENDENCY_MISSING');
  assert.deepEqual(blocked.error_details.missing_dependencies, ['s4_implementation']);
  const back = expectSuccess('goto', await engine.stage('goto', 's1_user_story', undefined, project));
  assert.deepEqual([back.transition.from_stage, back.transition.to_stage], ['s3_testcases', 's1_user_story']);
  expectError(await engine.stage('goto', undefined, undefined, project), 'MISSING_STAGE');
  expectError(await engine.stage('goto', 'S3', undefined, project), 'MISSING_STAGE');
  expectError(await engine.stage('goto', 's7_demo_script', undefined, { name: 'goto-minimal', mode: 'minimal' }), 'MISSING_STAGE');
  assert.equal(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).flow.current_stage, 's1_user_story');
});

test('validate scores a missing output 0, a partial one in between and a complete one 1', async () => {
  const project = { name: 'validating' };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, ANALYSIS, project));
  const none = expectSuccess('validate', await engine.stage('validate', 's1_user_story', undefined, project)).validation_result;
  assert.deepEqual([none.is_valid, none.completeness_score, none.missing_elements], [false, 0, ['output of s1_user_story']]);

  const template = (await templates.get('s1_user_story')).content;
  await save(project, 's1_user_story', template);
  const empty = expectSuccess('validate', await engine.stage('validate', 's1_user_story', undefined, project)).validation_result;
  assert.ok(empty.completeness_score < 0.3, `the template unchanged scores ${empty.completeness_score}`);

  const [head = '', ...rest] = template.split(/\n(?=## )/);
  await save(project, 's1_user_story', [fillTemplate(head), ...rest.map((chunk, index) => (index < 3 ? fillTemplate(chunk) : chunk))].join('\n'));
  const partial = expectSuccess('validate', await engine.stage('validate', 's1_user_story', undefined, project)).validation_result;
  assert.ok(partial.completeness_score > empty.completeness_score && partial.completeness_score < 1, String(partial.completeness_score));
  assert.ok(partial.missing_elements.includes('content under "## Acceptance Criteria"'));

  await save(project, 's1_user_story');
  const complete = expectSuccess('validate', await engine.stage('validate', undefined, undefined, project)).validation_result;
  assert.deepEqual([complete.is_valid, complete.completeness_score, complete.missing_elements], [true, 1, []]);
});

test('validate without analysis data counts it missing; an unknown stage is MISSING_STAGE', async () => {
  const project = { name: 'validate-no-analysis' };
  await save(project, 's1_user_story');
  const result = expectSuccess('validate', await engine.stage('validate', 's1_user_story', undefined, project)).validation_result;
  assert.deepEqual([result.is_valid, result.completeness_score, result.missing_elements], [false, 0.95, ['analysis data']]);
  expectError(await engine.stage('validate', 'report', undefined, project), 'MISSING_STAGE');
});
