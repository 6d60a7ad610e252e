import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createAceflowEngine, type AceflowEngine } from './engine.js';
import { LIMITS } from './errors.js';
import { expectError, expectSuccess, listTree, scratchDir } from './test-support.js';

let redis: Redis;
let prefix: string;
let engine: AceflowEngine;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let root: string;

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  scratch = await scratchDir('limits');
  root = path.join(scratch.dir, 'root');
  prefix = uniquePrefix('aceflow-limits');
  engine = createAceflowEngine({ redis, prefix, workspaceRoot: root });
});
after(async () => {
  await redis.quit();
  await scratch.remove();
});

/** set_analysis data whose JSON is exactly `bytes` long. */
const analysisOf = (bytes: number) => ({ project_info: { notes: 'a'.repeat(bytes - JSON.stringify({ project_info: { notes: '' } }).length) } });

test('an analysis of more than 10 MB is refused with its size and nothing is stored; 10 MB exactly is accepted', async () => {
  const project = { name: 'big-analysis' };
  const error = expectError(await engine.stage('set_analysis', undefined, analysisOf(LIMITS.analysisBytes + 1), project), 'INVALID_DATA');
  assert.deepEqual([error.error_details.field, error.error_details.size_bytes, error.error_details.limit_bytes], ['data', LIMITS.analysisBytes + 1, 10 * 1024 * 1024]);
  assert.match(error.error_message, /10 MB/);
  assert.equal(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).data_status.analysis_data_available, false);
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, analysisOf(LIMITS.analysisBytes), project));
});

test('an analysis that would pass 10 MB once merged with what is stored is refused, and the stored one is kept', async () => {
  const project = { name: 'growing-analysis' };
  expectSuccess('set_analysis', await engine.stage('set_analysis', undefined, analysisOf(6 * 1024 * 1024), project));
  const more = { code_metrics: { notes: 'b'.repeat(6 * 1024 * 1024) } };
  expectError(await engine.stage('set_analysis', undefined, more, project), 'INVALID_DATA');
  const prepared = expectSuccess('prepare_data', await engine.stage('prepare_data', 's1_user_story', undefined, project));
  assert.deepEqual(prepared.data_package.analysis_data.code_metrics, {});
});

test('a stage output over 5 MB is refused and nothing is written; 5 MB exactly is saved', async () => {
  const project = { name: 'big-output' };
  const body = 'é'.repeat(LIMITS.outputBytes / 2 - 3);
  const oversized = `# Big!\n${body}`;
  const atLimit = `# Big\n${body}`;
  assert.deepEqual([Buffer.byteLength(oversized), Buffer.byteLength(atLimit)], [LIMITS.outputBytes + 1, LIMITS.outputBytes], 'multi-byte characters count as their bytes');
  const error = expectError(await engine.stage('save_output', 's1_user_story', { content: oversized }, project), 'INVALID_DATA');
  assert.deepEqual([error.error_details.field, error.error_details.limit_bytes], ['data.content', 5 * 1024 * 1024]);
  assert.deepEqual(await listTree(root), []);
  assert.deepEqual(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).flow.completed_stages, []);

  const saved = expectSuccess('save_output', await engine.stage('save_output', 's1_user_story', { content: atLimit }, project));
  assert.equal(saved.stage_id, 's1_user_story');
});

test('a template over 1 MB, or none at all, is TEMPLATE_NOT_FOUND for prepare_data and validate', async () => {
  const templatesDir = path.join(scratch.dir, 'templates');
  await mkdir(templatesDir);
  await writeFile(path.join(templatesDir, 's1_user_story.md'), `# Huge\n\n## Body\n{{body}}\n${'x'.repeat(LIMITS.templateBytes)}`);
  const huge = createAceflowEngine({ redis, prefix, workspaceRoot: root, templatesDir });
  const project = { name: 'huge-template' };
  expectSuccess('set_analysis', await huge.stage('set_analysis', undefined, { project_info: { name: 'Huge' } }, project));
  const error = expectError(await huge.stage('prepare_data', 's1_user_story', undefined, project), 'TEMPLATE_NOT_FOUND');
  assert.equal(error.error_details.reason, 'too_large');
  assert.match(error.error_message, /1 MB/);
  expectError(await huge.stage('validate', 's1_user_story', undefined, project), 'TEMPLATE_NOT_FOUND');
  // Saving needs no template; the next stage's template is simply absent from this directory.
  expectSuccess('save_output', await huge.stage('save_output', 's1_user_story', { content: '# Stories' }, project));
  assert.equal(expectError(await huge.stage('prepare_data', 's2_tasks_group', undefined, project), 'TEMPLATE_NOT_FOUND').error_details.reason, 'missing');
});
