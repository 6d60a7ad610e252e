import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createAceflowEngine, type AceflowEngine } from './engine.js';
import { expectError, expectSuccess, listTree, scratchDir } from './test-support.js';

let redis: Redis;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let root: string;
let outside: string;
let prefix: string;
let engine: AceflowEngine;

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  scratch = await scratchDir('traversal');
  // The root sits next to the directory an attacker aims at, as `../outside` from a workspace.
  root = path.join(scratch.dir, 'root');
  outside = path.join(scratch.dir, 'outside');
  await mkdir(outside);
});
beforeEach(() => {
  prefix = uniquePrefix('aceflow-traversal');
  engine = createAceflowEngine({ redis, prefix, workspaceRoot: root });
});
after(async () => {
  await redis.quit();
  await scratch.remove();
});

const everything = async () => ({ files: await listTree(scratch.dir), keys: (await redis.keys(`${prefix}:*`)).sort() });
const OUTPUT = { content: '# Stories\n\n## Overview\nWritten.\n' };

test('project names that are paths are refused, and nothing is written to disk or Redis', async () => {
  const before = await everything();
  const names = ['../outside', '..', '.', '/tmp/x', `${outside}`, 'a/b', '%2e%2e', '%2e%2e%2foutside', '..%2f..%2foutside', 'a\\..\\b', '.hidden', 'ok\u0000'];
  for (const name of names) {
    for (const action of ['save_output', 'set_analysis', 'status'] as const) {
      const data = action === 'set_analysis' ? { project_info: { name: 'x' } } : OUTPUT;
      const error = expectError(await engine.stage(action, 's1_user_story', data, { name }), 'INVALID_DATA');
      assert.equal(error.error_details.field, 'project.name', `${action} with ${JSON.stringify(name)}`);
    }
  }
  assert.deepEqual(await everything(), before);
});

test('workspaces that leave the root are refused, and nothing is written to disk or Redis', async () => {
  const before = await everything();
  const workspaces = ['../outside', '/tmp', outside, 'a/../../outside', '%2e%2e/outside', '%2E%2E%2Foutside', 'a/./b', './a', 'a//b', '~/x', '\\\\server\\share'];
  for (const workspace of workspaces) {
    const error = expectError(await engine.stage('save_output', 's1_user_story', OUTPUT, { name: 'legit', workspace }), 'INVALID_DATA');
    assert.equal(error.error_details.field, 'project.workspace', workspace);
  }
  assert.deepEqual(await everything(), before);
});

test('stage ids that are paths are MISSING_STAGE, and no file is written', async () => {
  expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'stages' }));
  const before = await everything();
  for (const stage of ['../../outside/evil', '/etc/passwd', 's1_user_story/../../../outside/evil', 's1_user_story%2f..', `${outside}/evil`, 's1_user_story.md']) {
    expectError(await engine.stage('save_output', stage, OUTPUT, { name: 'stages' }), 'MISSING_STAGE');
    expectError(await engine.stage('prepare_data', stage, undefined, { name: 'stages' }), 'MISSING_STAGE');
  }
  assert.deepEqual(await everything(), before);
});

test('a symbolic link planted as the workspace is refused; nothing lands outside and no output is recorded', async () => {
  const project = { name: 'planted' };
  expectSuccess('status', await engine.stage('status', undefined, undefined, project));
  await mkdir(root, { recursive: true });
  await symlink(outside, path.join(root, 'planted'));
  const error = expectError(await engine.stage('save_output', 's1_user_story', OUTPUT, project), 'INVALID_DATA');
  assert.match(error.error_message, /outside/);
  assert.deepEqual(await listTree(outside), []);
  assert.deepEqual(expectSuccess('status', await engine.stage('status', undefined, undefined, project)).flow.completed_stages, []);
});

test('a symbolic link planted inside a workspace, as aceflow_result or as the output file, is refused', async () => {
  const project = { name: 'deeper' };
  await mkdir(path.join(root, 'deeper'), { recursive: true });
  await symlink(outside, path.join(root, 'deeper', 'aceflow_result'));
  expectError(await engine.stage('save_output', 's1_user_story', OUTPUT, project), 'INVALID_DATA');
  assert.deepEqual(await listTree(outside), []);

  const victim = path.join(outside, 'victim.md');
  await writeFile(victim, 'untouched');
  await mkdir(path.join(root, 'filelink', 'aceflow_result'), { recursive: true });
  await symlink(victim, path.join(root, 'filelink', 'aceflow_result', 's1_user_story.md'));
  expectError(await engine.stage('save_output', 's1_user_story', OUTPUT, { name: 'filelink' }), 'INVALID_DATA');
  assert.equal(await readFile(victim, 'utf8'), 'untouched');
  assert.deepEqual(await listTree(outside), ['victim.md']);
  assert.deepEqual(expectSuccess('status', await engine.stage('status', undefined, undefined, { name: 'filelink' })).flow.completed_stages, []);
});
