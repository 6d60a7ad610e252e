import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { SupervisorStore, type SupervisorTool } from '@switchyard/supervisor';
import { memorySession, type SuiteTool, type ToolContext, type ToolSuite } from '@switchyard/tool-suite';
import { supervisorSuite } from './index.js';

let redis: Redis;
let root: string;
let prefix: string;
let suite: ToolSuite;

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  root = await mkdtemp(path.join(os.tmpdir(), 'supervisor-suite-'));
  prefix = uniquePrefix('supervisor-suite');
  suite = supervisorSuite({ redis, prefix, workspaceRoot: root });
});
after(async () => {
  await redis.quit();
  await rm(root, { recursive: true, force: true });
});

const contextOf = (sessionId: string): ToolContext => ({ sessionId, requestId: 1, session: memorySession(), signal: new AbortController().signal, scopes: new Set(['read', 'run', 'admin']), reportProgress: async () => undefined });

const validator = new AjvJsonSchemaValidator();

/** Calls a tool through the suite as the bridge would, checking the answer against the tool's published output schema with the SDK's validator. */
async function call(context: ToolContext, name: SupervisorTool, args: Record<string, unknown> = {}) {
  const tool = suite.tools.find((t) => t.name === name) as SuiteTool;
  const outcome = await tool.handler(args, context);
  const checked = validator.getValidator(tool.outputSchema ?? {})(outcome.content);
  assert.ok(checked.valid, `${name}: ${checked.errorMessage ?? ''} ${JSON.stringify(outcome.content)}`);
  return outcome;
}

test('the suite serves the eighteen tools, each with input and output JSON Schemas and annotations', () => {
  assert.equal(suite.name, 'supervisor');
  assert.equal(suite.tools.length, 18);
  for (const tool of suite.tools) {
    assert.doesNotThrow(() => validator.getValidator(tool.inputSchema), `${tool.name}'s input schema compiles`);
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
    assert.equal(tool.outputSchema?.type, 'object', tool.name);
    assert.ok(tool.annotations?.title, tool.name);
    assert.ok(tool.description.length > 20, tool.name);
  }
  const report = suite.tools.find((t) => t.name === 'report');
  assert.deepEqual((report?.inputSchema as { required: string[] }).required, ['task_phase_id']);
  assert.equal(suite.tools.find((t) => t.name === 'cancel_task')?.annotations?.destructiveHint, true);
  assert.equal(suite.tools.find((t) => t.name === 'add_task')?.annotations?.idempotentHint, false);
});

test('two sessions through the suite: each is logged in on its own, and logging one out leaves the other working', async () => {
  const store = new SupervisorStore({ redis, prefix });
  const { user, api_token } = await store.createUser({ username: 'kim' });
  const { project } = await store.createProject({ owner_id: user.user_id, project_name: 'suite' }, '2024-01-20T10:30:00Z');
  const first = contextOf('session-1');
  const second = contextOf('session-2');

  const login = await call(first, 'login_with_project', { username: 'kim', api_token, project_id: project.project_id, workspace_path: 'kim' });
  assert.equal(login.isError, undefined);
  assert.deepEqual(login.content.project, { project_id: project.project_id, project_name: 'suite', templates_downloaded: 10 });
  const stranger = await call(second, 'add_task', { title: 't', goal: 'g', sop_step_identifier: 'testing' });
  assert.equal(stranger.isError, true);
  assert.deepEqual(stranger.content, { status: 'error', error_code: 'AUTH_001', message: '请先登录' }, 'the second session is not logged in by the first');

  await call(second, 'login_with_project', { username: 'kim', api_token, project_id: project.project_id, workspace_path: 'kim-2' });
  const added = await call(first, 'add_task', { title: '测试用例', goal: '覆盖验收标准', sop_step_identifier: 'testing' });
  const taskId = (added.content.data as { task_id: string }).task_id;
  await call(second, 'start', { task_id: taskId });
  const phase = await call(first, 'next');
  assert.equal((phase.content.task_phase as { type: string }).type, 'UNDERSTANDING', 'both sessions work on the same project');
  assert.deepEqual(await readdir(path.join(root, 'kim', 'supervisor_workspace', 'current_task')), ['.task_id', '01_understanding_instructions.md']);

  assert.equal((await call(second, 'logout')).content.success, true);
  assert.equal((await call(second, 'next')).content.error_code, 'AUTH_001');
  const reported = await call(first, 'report', { task_phase_id: (phase.content.task_phase as { id: string }).id });
  assert.equal(reported.isError, undefined, 'the first session is still logged in');
});

test('an answer with a field the seed does not have fails the published output schema', () => {
  const start = suite.tools.find((t) => t.name === 'start') as SuiteTool;
  const check = validator.getValidator(start.outputSchema ?? {});
  assert.equal(check({ status: 'error', error_code: 'AUTH_001', message: '请先登录' }).valid, true);
  assert.equal(check({ status: 'error', error_code: 'AUTH_001', message: '请先登录', summary: 'no' }).valid, false);
});

test('a bad argument reaches the handler as a VALIDATION_ERROR result, not a thrown error', async () => {
  const outcome = await call(contextOf('session-3'), 'pre_analyze', { user_requirement: 42 });
  assert.equal(outcome.isError, true);
  assert.equal(outcome.content.error_code, 'VALIDATION_ERROR');
  assert.match(String(outcome.content.message), /^user_requirement: /);
});
