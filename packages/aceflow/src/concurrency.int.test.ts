/**
 * Two engines with their own Redis connections stand for two processes (a bridge and a worker,
 * or two bridges) working on the same projects.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createAceflowEngine, type AceflowEngine } from './engine.js';
import { AceflowError } from './errors.js';
import { transitionResponseSchema } from './responses.js';
import { expectError, expectSuccess, scratchDir } from './test-support.js';

let connections: Redis[];
let a: AceflowEngine;
let b: AceflowEngine;
let scratch: Awaited<ReturnType<typeof scratchDir>>;

before(async () => {
  const { url } = await testRedis();
  connections = [createRedisClient(url), createRedisClient(url)];
  scratch = await scratchDir('concurrency');
  const shared = { prefix: uniquePrefix('aceflow-concurrency'), workspaceRoot: path.join(scratch.dir, 'root') };
  a = createAceflowEngine({ redis: connections[0] as Redis, ...shared });
  b = createAceflowEngine({ redis: connections[1] as Redis, ...shared });
});
after(async () => {
  await Promise.all(connections.map((connection) => connection.quit()));
  await scratch.remove();
});

test('what one engine writes, the other reads', async () => {
  const project = { name: 'shared', mode: 'minimal' as const };
  expectSuccess('set_analysis', await a.stage('set_analysis', undefined, { project_info: { name: 'Shared' } }, project));
  expectSuccess('save_output', await a.stage('save_output', 's1_user_story', { content: '# Stories\n\n## Overview\nShared.\n' }, project));
  const seen = expectSuccess('status', await b.stage('status', undefined, undefined, { name: 'shared' }));
  assert.deepEqual([seen.project.mode, seen.flow.completed_stages, seen.data_status.analysis_data_available], ['minimal', ['s1_user_story'], true]);
  const prepared = expectSuccess('prepare_data', await b.stage('prepare_data', 's2_tasks_group', undefined, { name: 'shared' }));
  assert.equal(prepared.data_package.previous_outputs.s1_user_story?.content, '# Stories\n\n## Overview\nShared.\n');
});

test('a project opened by both at once in different modes is created once, in one mode', async () => {
  const outcomes = await Promise.allSettled([a.openProject({ name: 'race-open', mode: 'minimal' }), b.openProject({ name: 'race-open', mode: 'standard' })]);
  const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
  const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  assert.equal(created.length, 1);
  assert.equal(refused.length, 1);
  assert.ok(refused[0]?.reason instanceof AceflowError && refused[0].reason.code === 'INVALID_DATA');
  const mode = created[0]?.status === 'fulfilled' ? created[0].value.mode : undefined;
  assert.equal((await b.status({ name: 'race-open' })).project.mode, mode);
});

test('concurrent set_analysis merges from both engines lose nothing', async () => {
  const project = { name: 'race-merge' };
  const writers = Array.from({ length: 24 }, (_, i) =>
    (i % 2 === 0 ? a : b).stage('set_analysis', undefined, { project_info: { directory_structure: { [`dir${i}`]: i } }, test_metrics: { [`suite${i}`]: i } }, project),
  );
  for (const response of await Promise.all(writers)) expectSuccess('set_analysis', response);
  expectSuccess('set_analysis', await a.stage('set_analysis', undefined, { project_info: { name: 'Race' } }, project));
  const { analysis_data } = expectSuccess('prepare_data', await b.stage('prepare_data', 's1_user_story', undefined, project)).data_package;
  const structure = analysis_data.project_info.directory_structure as Record<string, number>;
  assert.deepEqual(Object.keys(structure).length, 24);
  for (let i = 0; i < 24; i += 1) {
    assert.equal(structure[`dir${i}`], i);
    assert.equal(analysis_data.test_metrics[`suite${i}`], i);
  }
  assert.equal(analysis_data.project_info.name, 'Race');
});

test('many concurrent next calls from both engines move the flow exactly one stage', async () => {
  const project = { name: 'race-next' };
  expectSuccess('save_output', await a.stage('save_output', 's1_user_story', { content: '# Stories' }, project));
  const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).stage('next', undefined, undefined, project)));
  const moved = responses.filter((response) => transitionResponseSchema.safeParse(response).success);
  assert.equal(moved.length, 1, JSON.stringify(responses));
  assert.deepEqual(transitionResponseSchema.parse(moved[0]).transition, { from_stage: 's1_user_story', to_stage: 's2_tasks_group', progress_update: 13 });
  // The others were applied after it: from s2, whose output is not saved.
  for (const response of responses.filter((r) => !moved.includes(r))) {
    assert.deepEqual(expectError(response, 'DEPENDENCY_MISSING').error_details.missing_dependencies, ['s2_tasks_group']);
  }
  for (const engine of [a, b]) assert.equal((await engine.status(project)).flow.current_stage, 's2_tasks_group');
});

test('goto and next racing on both engines behave as if made one after another', async () => {
  const project = { name: 'race-goto' };
  for (const stage of ['s1_user_story', 's2_tasks_group', 's3_testcases'] as const) await b.saveOutput(project, stage, { content: `# ${stage}` });
  const responses = await Promise.all([a.stage('goto', 's3_testcases', undefined, project), b.stage('goto', 's2_tasks_group', undefined, project), a.stage('next', undefined, undefined, project)]);
  // Every one of these moves is allowed from anywhere, so all three succeed.
  const moves = responses.map((response) => expectSuccess('goto', response).transition);
  const final = (await a.status(project)).flow.current_stage;
  // Serial means some order chains them: the first starts at s1, each starts where the one before
  // ended, and the last ends where the flow is now.
  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map((order) => order.map((index) => moves[index] as (typeof moves)[number]));
  const chained = orders.some((order) => order.every((move, i) => move.from_stage === (i === 0 ? 's1_user_story' : order[i - 1]?.to_stage)) && order.at(-1)?.to_stage === final);
  assert.ok(chained, `no serial order explains ${JSON.stringify(moves)} ending at ${final}`);
});
