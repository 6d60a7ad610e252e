import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createAceflowEngine, type AceflowEngine } from './engine.js';
import { TemplateStore } from './templates.js';
import { expectError, expectSuccess, fillTemplate, listTree, scratchDir } from './test-support.js';

let redis: Redis;
let engine: AceflowEngine;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let root: string;
const templates = new TemplateStore();

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  scratch = await scratchDir('engine');
  root = path.join(scratch.dir, 'root');
  engine = createAceflowEngine({ redis, prefix: uniquePrefix('aceflow'), workspaceRoot: root });
});
after(async () => {
  await redis.quit();
  await scratch.remove();
});

const SEED_ANALYSIS = {
  project_info: { name: 'TaskManager', tech_stack: ['Python', 'FastAPI', 'Vue3'], file_count: 42 },
  test_metrics: { total_tests: 25, test_coverage_percent: 87.5 },
};

/** A filled output for `stage`, from the shipped template. */
const filled = async (stage: Parameters<TemplateStore['get']>[0]) => fillTemplate((await templates.get(stage)).content);

test('set_analysis stores the seed example and answers with an analysis id, a timestamp and the categories sent', async () => {
  const project = { name: 'seed-example' };
  const stored = expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, SEED_ANALYSIS, project));
  assert.deepEqual(stored.data_stored.categories, ['project_info', 'test_metrics']);
  assert.ok(Math.abs(Date.parse(stored.data_stored.timestamp) - Date.now()) < 60_000);
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.equal(status.data_status.analysis_data_available, true);
});

test('set_analysis merges into what is stored, category by category, and each write gets a new analysis id', async () => {
  const project = { name: 'merging' };
  const first = expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, { project_info: { name: 'Shop', tech_stack: ['TS'], directory_structure: { src: 10 } }, code_metrics: { total_lines: 900 } }, project));
  const second = expectSuccess(
    'set_analysis',
    await engine.stage('set_analysis', undefined, { project_info: { file_count: 12, directory_structure: { test: 4 } }, test_metrics: { test_coverage_percent: 71 }, build_info: { build_tool: 'npm' } }, project),
  );
  assert.notEqual(first.data_stored.analysis_id, second.data_stored.analysis_id);
  assert.deepEqual(second.data_stored.categories, ['project_info', 'test_metrics', 'build_info']);
  const prepared = expectSuccess('prepare_data', await engine.stage('prepare_data', 's1_user_story', undefined, project));
  assert.deepEqual(prepared.data_package.analysis_data, {
    project_info: { name: 'Shop', tech_stack: ['TS'], directory_structure: { src: 10, test: 4 }, file_count: 12 },
    code_metrics: { total_lines: 900 },
    test_metrics: { test_coverage_percent: 71 },
    build_info: { build_tool: 'npm' },
  });
});

test('set_analysis refuses data breaking the seed rules with INVALID_DATA naming the field, and stores nothing', async () => {
  const project = { name: 'bad-analysis' };
  const cases: [unknown, string][] = [
    [{ project_info: { name: '' } }, 'data.project_info.name'],
    [{ project_info: { name: 'n'.repeat(101) } }, 'data.project_info.name'],
    [{ project_info: { file_count: -1 } }, 'data.project_info.file_count'],
    [{ code_metrics: { complexity_score: 21 } }, 'data.code_metrics.complexity_score'],
    [{ test_metrics: { test_coverage_percent: 101 } }, 'data.test_metrics.test_coverage_percent'],
    [undefined, 'data'],
  ];
  for (const [data, field] of cases) {
    const error = expectError(await engine.stage('set_analysis', undefined, data, project), 'INVALID_DATA');
    assert.equal(error.error_details.field, field);
    assert.match(error.error_message, new RegExp(field.replace(/\./g, '\\.')));
  }
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.equal(status.data_status.analysis_data_available, false);
});

test('prepare_data before any analysis is ANALYSIS_DATA_MISSING', async () => {
  const error = expectError(await engine.stage('prepare_data', 's1_user_story', undefined, { name: 'no-analysis' }), 'ANALYSIS_DATA_MISSING');
  assert.match(error.suggested_actions.join('\n'), /set_analysis/);
});

test('prepare_data hands over the template, previous outputs with key points, the analysis, the context, the dependencies and the instructions', async () => {
  const project = { name: 'package' };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, SEED_ANALYSIS, project));
  const stories = `${await filled('s1_user_story')}\n`;
  expectSuccess('save_output', await engine.stage('save_output', 's1_user_story', { content: stories, metadata: { ai_confidence: 0.9 } }, project));
  expectSuccess('save_output', await engine.stage('save_output', 's2_tasks_group', { content: await filled('s2_tasks_group') }, project));

  const prepared = expectSuccess('prepare_data', await engine.stage('prepare_data', 's3_testcases', undefined, project));
  const template = await templates.get('s3_testcases');
  const { data_package: pack, instructions } = prepared;
  assert.equal(prepared.stage_id, 's3_testcases');
  assert.deepEqual(pack.template, { content: template.content, format: 'markdown', source_file: 'templates/s3_testcases.md', placeholders: template.placeholders, sections: template.sections });
  assert.deepEqual(Object.keys(pack.previous_outputs), ['s1_user_story', 's2_tasks_group']);
  const s1 = pack.previous_outputs.s1_user_story;
  assert.equal(s1?.content, stories);
  assert.equal(s1?.metadata.ai_confidence, 0.9);
  assert.ok(typeof s1?.metadata.word_count === 'number' && s1.metadata.word_count > 100, 'the word count is measured when not given');
  assert.equal(s1?.metadata.sections_count, (await templates.get('s1_user_story')).sections.length);
  assert.equal(s1?.key_points[0], 'Overview: The product summary of this project, written out in full for the reader.');
  assert.deepEqual(pack.analysis_data, { ...SEED_ANALYSIS, code_metrics: {} });
  assert.deepEqual(pack.project_context, { name: 'package', mode: 'complete', current_stage: 's1_user_story', progress_percentage: 25, created_at: pack.project_context.created_at });
  assert.deepEqual(pack.stage_dependencies.required_inputs, ['s1_user_story', 's2_tasks_group']);
  assert.deepEqual(pack.stage_dependencies.optional_inputs, []);
  assert.ok(pack.stage_dependencies.expected_outputs.length > 0);
  assert.equal(instructions.output_location, 'aceflow_result/s3_testcases.md');
  assert.match(instructions.task_description, /package/);
  assert.ok(instructions.quality_requirements.some((line) => line.includes('{{placeholder}}')));
  assert.ok(instructions.success_criteria.length > 0);
});

test('prepare_data without a stage, with an unknown stage or with one outside the mode is MISSING_STAGE', async () => {
  const project = { name: 'stages-minimal', mode: 'minimal' as const };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, SEED_ANALYSIS, project));
  assert.deepEqual(expectError(await engine.stage('prepare_data', undefined, undefined, project), 'MISSING_STAGE').error_details.available_stages, [
    's1_user_story',
    's2_tasks_group',
    's4_implementation',
    's5_test_report',
  ]);
  expectError(await engine.stage('prepare_data', 's9_party', undefined, project), 'MISSING_STAGE');
  const outside = expectError(await engine.stage('prepare_data', 's6_codereview', undefined, project), 'MISSING_STAGE');
  assert.equal(outside.error_details.mode, 'minimal');
});

test('prepare_data of a stage whose inputs are not saved hands over what there is and names what is missing', async () => {
  const project = { name: 'deps' };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, SEED_ANALYSIS, project));
  const early = expectSuccess('prepare_data', await engine.stage('prepare_data', 's5_test_report', undefined, project));
  assert.deepEqual(early.data_package.previous_outputs, {});
  assert.deepEqual(early.data_package.stage_dependencies.required_inputs, ['s4_implementation']);
  assert.ok(early.instructions.quality_requirements.some((line) => /Not saved yet: s4_implementation/.test(line)), 'the instructions name the missing input');
  expectSuccess('save_output', await engine.stage('save_output', 's1_user_story', { content: await filled('s1_user_story') }, project));
  const next = expectSuccess('prepare_data', await engine.stage('prepare_data', 's2_tasks_group', undefined, project));
  assert.deepEqual(Object.keys(next.data_package.previous_outputs), ['s1_user_story']);
  assert.ok(!next.instructions.quality_requirements.some((line) => /Not saved yet/.test(line)), 'nothing is missing for s2');
});

test('save_output writes the output file and the state, and says whether the next stage is unlocked', async () => {
  const project = { name: 'saving', workspace: 'clients/saving' };
  for (const stage of ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation'] as const) {
    const saved = expectSuccess('save_output', await engine.stage('save_output', stage, { content: await filled(stage) }, project));
    assert.equal(saved.next_stage_unlocked, true, `after ${stage}`);
    assert.equal(saved.saved_to, path.join(root, 'clients', 'saving', 'aceflow_result', `${stage}.md`));
    assert.equal(await readFile(saved.saved_to, 'utf8'), await filled(stage));
  }
  expectSuccess('save_output', await engine.stage('save_output', 's5_test_report', { content: await filled('s5_test_report') }, project));
  const demo = expectSuccess('save_output', await engine.stage('save_output', 's7_demo_script', { content: await filled('s7_demo_script') }, project));
  assert.equal(demo.next_stage_unlocked, false, 's8 still needs s6');
  assert.match(demo.message, /s8_summary_report still needs s6_codereview/);
  expectSuccess('save_output', await engine.stage('save_output', 's6_codereview', { content: await filled('s6_codereview') }, project));
  const last = expectSuccess('save_output', await engine.stage('save_output', 's8_summary_report', { content: await filled('s8_summary_report') }, project));
  assert.equal(last.next_stage_unlocked, false, 'nothing comes after the last stage');
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.equal(status.flow.progress_percentage, 100);
  assert.equal(status.flow.estimated_remaining_time, null);
});

test('save_output refuses a missing stage, missing content and bad metadata, and writes nothing', async () => {
  const project = { name: 'refused-output' };
  expectError(await engine.stage('save_output', undefined, { content: 'x' }, project), 'MISSING_STAGE');
  expectError(await engine.stage('save_output', 's0_nothing', { content: 'x' }, project), 'MISSING_STAGE');
  const refusals: [unknown, string][] = [
    [undefined, 'data'],
    [{}, 'data.content'],
    [{ content: '   \n' }, 'data.content'],
    [{ content: 'ok', metadata: { ai_confidence: 1.5 } }, 'data.metadata.ai_confidence'],
    [{ content: 'ok', metadata: { word_count: -2 } }, 'data.metadata.word_count'],
    [{ content: 'ok', artifacts: { supporting_files: 'a.md' } }, 'data.artifacts.supporting_files'],
  ];
  for (const [data, field] of refusals) assert.equal(expectError(await engine.stage('save_output', 's1_user_story', data, project), 'INVALID_DATA').error_details.field, field);
  assert.deepEqual(await listTree(path.join(root, 'refused-output')), []);
  assert.deepEqual(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).flow.completed_stages, []);
});

test('save_output before the stage\'s dependencies keeps the output, says what it was written without, and moves an idle flow to it', async () => {
  const project = { name: 'early-output' };
  const saved = expectSuccess('save_output', await engine.stage('save_output', 's4_implementation', { content: '# Done' }, project));
  assert.match(saved.message, /written without s2_tasks_group, s3_testcases/);
  assert.equal(saved.next_stage_unlocked, true, 's5 needs only s4');
  assert.equal(await readFile(saved.saved_to, 'utf8'), '# Done');
  const status = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.equal(status.flow.current_stage, 's4_implementation', 'nobody worked on s1: the flow is where the work is');
  assert.deepEqual(expectSuccess('next', await engine.stage('next', undefined, undefined, project)).transition, { from_stage: 's4_implementation', to_stage: 's5_test_report', progress_update: 13 });
  expectError(await engine.stage('goto', 's6_codereview', undefined, project), 'DEPENDENCY_MISSING');
});

test('status follows the current stage from pending to in progress to completed', async () => {
  const project = { name: 'status-flow', mode: 'standard' as const };
  const fresh = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.deepEqual(fresh.project, { name: 'status-flow', mode: 'standard', created_at: fresh.project.created_at, last_updated: fresh.project.created_at });
  assert.deepEqual(fresh.flow, {
    current_stage: 's1_user_story',
    current_stage_status: 'pending',
    completed_stages: [],
    next_stage: 's2_tasks_group',
    progress_percentage: 0,
    estimated_remaining_time: 'about 3 h 55 min',
  });
  assert.deepEqual(fresh.data_status, { analysis_data_available: false, previous_outputs_count: 0, missing_dependencies: [] });

  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, SEED_ANALYSIS, project));
  expectSuccess('prepare_data', await engine.stage('prepare_data', 's1_user_story', undefined, project));
  assert.equal(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).flow.current_stage_status, 'in_progress');
  expectSuccess('save_output', await engine.stage('save_output', 's1_user_story', { content: await filled('s1_user_story') }, project));
  const done = expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  assert.equal(done.flow.current_stage_status, 'completed');
  assert.deepEqual([done.flow.completed_stages, done.flow.progress_percentage, done.flow.estimated_remaining_time], [['s1_user_story'], 17, 'about 3 h 25 min']);
  assert.equal(done.data_status.previous_outputs_count, 1);
  assert.ok(done.project.last_updated >= fresh.project.last_updated);
});

test('a project is named safely, and its mode and workspace are fixed when it is created', async () => {
  for (const name of ['', 'with space', '../up', 'a/b', '-dash', 'x'.repeat(101)]) {
    assert.equal(expectError(await engine.stage('status', undefined, undefined, { name }), 'INVALID_DATA').error_details.field, 'project.name', name);
  }
  assert.equal(expectError(await engine.stage('status', undefined, undefined, { name: 'p', mode: 'turbo' } as never), 'INVALID_DATA').error_details.field, 'project.mode');
  assert.equal(expectError(await engine.stage('status', undefined, undefined, undefined as never), 'INVALID_DATA').error_details.field, 'project');

  expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'fixed', mode: 'minimal', workspace: 'w/fixed' }));
  assert.equal(expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'fixed' })).project.mode, 'minimal');
  const mode = expectError(await engine.stage('status', undefined, undefined, { name: 'fixed', mode: 'complete' }), 'INVALID_DATA');
  assert.deepEqual([mode.error_details.field, mode.error_details.current], ['project.mode', 'minimal']);
  assert.equal(expectError(await engine.stage('status', undefined, undefined, { name: 'fixed', workspace: 'elsewhere' }), 'INVALID_DATA').error_details.field, 'project.workspace');
});

test('two projects cannot share a workspace, so neither overwrites the other\'s outputs', async () => {
  expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'owner', workspace: 'shared/place' }));
  const taken = expectError(await engine.stage('status', undefined, undefined, { name: 'intruder', workspace: 'shared/place' }), 'INVALID_DATA');
  assert.deepEqual([taken.error_details.field, taken.error_details.owner], ['project.workspace', 'owner']);
  expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'claimed', workspace: 'named-later' }));
  assert.equal(expectError(await engine.stage('status', undefined, undefined, { name: 'named-later' }), 'INVALID_DATA').error_details.field, 'project.name');
  expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'intruder', workspace: 'shared/other' }));
});

test('an unknown action is INVALID_DATA naming the actions there are', async () => {
  const error = expectError(await engine.stage('launch', undefined, undefined, { name: 'actions' }), 'INVALID_DATA');
  assert.equal(error.error_details.field, 'action');
  assert.match(error.error_message, /set_analysis, save_output, prepare_data, status, next, goto, validate/);
});
