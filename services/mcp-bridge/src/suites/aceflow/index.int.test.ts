import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { errorResponseSchema, RESPONSE_SCHEMAS, STAGE_IDS, type AceflowAction } from '@switchyard/aceflow';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { memorySession, type SuiteTool, type ToolContext, type ToolOutcome } from '@switchyard/tool-suite';
import { aceflowSuite, DEFAULT_PROJECT, SESSION_PROJECT_KEY } from './index.js';

let redis: Redis;
let root: string;
let tool: SuiteTool;

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  root = await mkdtemp(path.join(os.tmpdir(), 'aceflow-suite-'));
  const suite = aceflowSuite({ redis, prefix: uniquePrefix('aceflow-suite'), workspaceRoot: root });
  assert.equal(suite.tools.length, 1);
  tool = suite.tools[0] as SuiteTool;
});
after(async () => {
  await redis.quit();
  await rm(root, { recursive: true, force: true });
});

const contextOf = (sessionId: string): ToolContext => ({ sessionId, requestId: 1, session: memorySession(), signal: new AbortController().signal, scopes: new Set(['read', 'run', 'admin']), reportProgress: async () => undefined });

const succeeded = <A extends AceflowAction>(action: A, outcome: ToolOutcome) => {
  assert.notEqual(outcome.isError, true, JSON.stringify(outcome.content));
  return RESPONSE_SCHEMAS[action].parse(outcome.content) as z.output<(typeof RESPONSE_SCHEMAS)[A]>;
};
const failed = (outcome: ToolOutcome, code: string) => {
  assert.equal(outcome.isError, true, JSON.stringify(outcome.content));
  const error = errorResponseSchema.parse(outcome.content);
  assert.equal(error.error_code, code);
  return error;
};

test('the suite offers aceflow_stage with the seven actions, a stage, data and a project', () => {
  assert.equal(tool.name, 'aceflow_stage');
  const schema = tool.inputSchema as { type: string; properties: Record<string, { enum?: string[] }>; required: string[] };
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.properties.action?.enum, ['set_analysis', 'save_output', 'prepare_data', 'status', 'next', 'goto', 'validate']);
  assert.deepEqual(Object.keys(schema.properties), ['action', 'stage', 'data', 'project']);
  assert.deepEqual(schema.required, ['action']);
  assert.equal((tool.outputSchema as { type: string }).type, 'object');
  assert.equal(tool.annotations?.readOnlyHint, false);
});

test('a session that names no project works on the default one', async () => {
  const context = contextOf('unnamed');
  const status = succeeded('status', await tool.handler({ action: 'status' }, context));
  assert.deepEqual([status.project.name, status.project.mode], [DEFAULT_PROJECT.name, 'complete']);
  assert.deepEqual(await context.session.get(SESSION_PROJECT_KEY), { name: 'default', mode: 'complete', workspace: 'default' });
});

test('a named project becomes the session\'s, and later calls without one work on it', async () => {
  const context = contextOf('flow');
  const project = { name: 'suite-shop', mode: 'minimal' };
  succeeded('set_analysis', await tool.handler({ action: 'set_analysis', project, data: { project_info: { name: 'Shop', file_count: 3 } } }, context));
  assert.deepEqual(await context.session.get(SESSION_PROJECT_KEY), { name: 'suite-shop', mode: 'minimal', workspace: 'suite-shop' });

  const prepared = succeeded('prepare_data', await tool.handler({ action: 'prepare_data', stage: 's1_user_story' }, context));
  const content = prepared.data_package.template.content.replace(/\{\{([a-z_]+)\}\}/g, (_, name: string) => `The ${name.replace(/_/g, ' ')} for the shop, in full sentences.`);
  const saved = succeeded('save_output', await tool.handler({ action: 'save_output', stage: 's1_user_story', data: { content } }, context));
  assert.equal(await readFile(saved.saved_to, 'utf8'), content);
  assert.equal(saved.saved_to, path.join(root, 'suite-shop', 'aceflow_result', 's1_user_story.md'));
  assert.equal(succeeded('validate', await tool.handler({ action: 'validate' }, context)).validation_result.completeness_score, 1);
  assert.deepEqual(succeeded('next', await tool.handler({ action: 'next' }, context)).transition.to_stage, 's2_tasks_group');
  const status = succeeded('status', await tool.handler({ action: 'status' }, context));
  assert.deepEqual([status.project.name, status.flow.current_stage], ['suite-shop', 's2_tasks_group']);
  succeeded('goto', await tool.handler({ action: 'goto', stage: STAGE_IDS[0] }, context));
});

test('a refusal is an isError outcome in the seed\'s error shape, and a bad project does not replace the session\'s', async () => {
  const context = contextOf('errors');
  succeeded('status', await tool.handler({ action: 'status', project: { name: 'suite-errors' } }, context));
  failed(await tool.handler({ action: 'prepare_data', stage: 's9_unknown' }, context), 'MISSING_STAGE');
  failed(await tool.handler({ action: 'prepare_data', stage: 's1_user_story' }, context), 'ANALYSIS_DATA_MISSING');
  failed(await tool.handler({ action: 'goto', stage: 's5_test_report' }, context), 'DEPENDENCY_MISSING');
  failed(await tool.handler({ action: 'set_analysis', data: { code_metrics: { complexity_score: 99 } } }, context), 'INVALID_DATA');
  const traversal = failed(await tool.handler({ action: 'status', project: { name: '../../etc' } }, context), 'INVALID_DATA');
  assert.equal(traversal.error_details.field, 'project.name');
  assert.equal(((await context.session.get(SESSION_PROJECT_KEY)) as { name: string }).name, 'suite-errors');
});
