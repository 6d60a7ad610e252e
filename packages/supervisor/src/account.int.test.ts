import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Cluster, Redis } from 'ioredis';
import { createRedisClient, freePort, isCluster } from '@switchyard/redis';
import { memorySession } from '@switchyard/tool-suite';
import { SupervisorEngine } from './engine.js';
import { agent, harness, loggedInAgent, type Harness } from './test-kit.js';

/** The address health names: the Redis URL, or on a cluster its masters. */
const redisAddressOf = (redis: Redis) =>
  isCluster(redis) ? `redis-cluster://${(redis as unknown as Cluster).nodes('master').map((n) => `${n.options.host}:${n.options.port}`).sort().join(',')}` : `redis://${redis.options.host}:${redis.options.port}/0`;

let h: Harness;
const CLOCK = new Date('2024-01-20T10:30:00.250Z');
before(async () => {
  h = await harness({ clock: () => CLOCK });
});
after(() => h.close());

test('ping answers ok with the time in seconds and the server name', async () => {
  assert.deepEqual(await agent(h.engine).ok('ping'), { status: 'ok', message: 'MCP server is running', timestamp: CLOCK.getTime() / 1000, server_name: 'Scienith Supervisor MCP' });
});

test("login_with_project downloads the project's templates into the workspace and counts them", async () => {
  const { user, api_token } = await h.engine.store.createUser({ username: 'ivan' });
  const { project } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: '商城' }, '2024-01-20T10:30:00Z');
  const reply = await agent(h.engine).ok('login_with_project', { username: 'ivan', api_token, project_id: project.project_id, workspace_path: 'ivan/shop' });
  assert.deepEqual(reply, { success: true, user_id: user.user_id, username: 'ivan', project: { project_id: project.project_id, project_name: '商城', templates_downloaded: 10 } });
  const templates = path.join(h.workspaceRoot, 'ivan', 'shop', 'supervisor_workspace', 'templates');
  assert.equal((await readdir(templates)).length, 10);
  assert.match(await readFile(path.join(templates, 'apiDesign.md'), 'utf8'), /^# 接口设计/);
});

test("create_project makes the new project the session's, with its initial task groups", async () => {
  const { agent: a } = await loggedInAgent(h);
  const created = await a.ok('create_project', {
    project_name: '博客系统',
    description: 'A blog',
    workspace_path: 'blog',
    initial_tasks: [
      { title: '需求梳理', goal: '整理需求', sop_step_identifier: 'requirementAnalysis' },
      { title: '表结构', goal: '设计表', sop_step_identifier: 'dataModel' },
    ],
  });
  assert.deepEqual({ ...created, project_id: 'x' }, { status: 'success', project_id: 'x', project_name: '博客系统', sop_steps_count: 10, initial_tasks: 2, message: '项目创建成功' });
  const started = await a.ok('start', { task_id: (await h.engine.store.tasks.list(String(created.project_id)))[0]?.task_id });
  assert.equal((started.data as { title: string }).title, '需求梳理', 'the session now works in the new project');
  assert.equal((await readdir(path.join(h.workspaceRoot, 'blog', 'supervisor_workspace', 'templates'))).length, 10);
});

test("setup_workspace binds a logged-in session to a project and answers the seed's fields", async () => {
  const { user, api_token } = await h.engine.store.createUser({ username: 'judy' });
  const { project } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: 'legacy' }, '2024-01-20T10:30:00Z');
  const a = agent(h.engine);
  await a.ok('login', { username: 'judy', api_token });
  assert.deepEqual(await a.ok('setup_workspace', { project_id: project.project_id, workspace_path: 'judy' }), {
    success: true,
    message: '工作区初始化成功',
    project: { project_id: project.project_id, project_name: 'legacy' },
    templates_downloaded: 10,
  });
  assert.equal((await a.ok('next')).status, 'no_available_tasks');
});

test('health is healthy for a session in a project, degraded without one, and notices Redis is unreachable', async () => {
  const { agent: a } = await loggedInAgent(h);
  assert.deepEqual(await a.ok('health'), {
    status: 'healthy',
    message: 'All systems operational',
    checks: { api_connection: true, authentication: true, project_context: true, api_url: redisAddressOf(h.redis) },
  });
  const degraded = async (engine: SupervisorEngine, session = memorySession()) => {
    const reply = await engine.call('health', {}, session);
    assert.equal(reply.content.status, 'degraded');
    assert.equal(reply.content.message, 'Some systems are not functioning properly');
    return reply.content.checks;
  };
  assert.deepEqual(await degraded(h.engine), { api_connection: true, authentication: false, project_context: false, api_url: redisAddressOf(h.redis) });

  const down = createRedisClient(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    const offline = new SupervisorEngine({ redis: down, prefix: h.prefix, workspaceRoot: h.workspaceRoot, apiUrl: 'http://supervisor.example/api/v1', healthTimeoutMs: 200 });
    assert.deepEqual(await degraded(offline, a.session), { api_connection: false, authentication: false, project_context: false, api_url: 'http://supervisor.example/api/v1' });
  } finally {
    down.disconnect();
  }
});

test("pre_analyze recommends the project's steps for a requirement, best first, with reasons", async () => {
  const { agent: a } = await loggedInAgent(h);
  const reply = await a.ok('pre_analyze', { user_requirement: '设计订单模块的数据库表结构和索引。然后实现接口', limit: 3 });
  assert.equal(reply.status, 'success');
  const analysis = reply.analysis as { user_requirement: string; recommended_steps: { step_identifier: string; step_name: string; relevance_score: number; reason: string }[]; suggested_task_title: string; suggested_task_goal: string };
  assert.equal(analysis.user_requirement, '设计订单模块的数据库表结构和索引。然后实现接口');
  assert.equal(analysis.recommended_steps.length, 3);
  assert.deepEqual(analysis.recommended_steps[0] && [analysis.recommended_steps[0].step_identifier, analysis.recommended_steps[0].step_name], ['dataModel', '数据模型设计']);
  const scores = analysis.recommended_steps.map((s) => s.relevance_score);
  assert.deepEqual([...scores].sort((x, y) => y - x), scores, 'best first');
  assert.ok(scores.every((s) => s > 0 && s <= 1));
  assert.match(analysis.recommended_steps[0]?.reason ?? '', /「数据」.*系统分析 阶段/);
  assert.equal(analysis.suggested_task_title, '设计订单模块的数据库表结构和索引');
  assert.match(analysis.suggested_task_goal, /数据模型设计/);
});

test('pre_analyze reads the rules as they are now, so a new rule can make its step the best match', async () => {
  const { agent: a } = await loggedInAgent(h);
  const requirement = '接入微信支付与支付宝支付';
  const top = async () => ((await a.ok('pre_analyze', { user_requirement: requirement })).analysis as { recommended_steps: { step_identifier: string }[] }).recommended_steps[0]?.step_identifier;
  assert.notEqual(await top(), 'backendImplementation');
  await a.ok('update_step_rules', { step_identifier: 'backendImplementation', rules: ['支付接入必须校验回调签名', '微信支付与支付宝支付走统一的支付网关'] });
  assert.equal(await top(), 'backendImplementation');
});
