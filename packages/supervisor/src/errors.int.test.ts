import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { SupervisorTool } from './args.js';
import { agent, harness, loggedInAgent, snapshot, type Agent, type Harness } from './test-kit.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h.close());

const addTask = async (a: Agent, title = 'task') => ((await a.ok('add_task', { title, goal: 'g', sop_step_identifier: 'apiDesign' })).data as { task_id: string }).task_id;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

test('a session that never logged in, or logged out, answers AUTH_001', async () => {
  const stranger = agent(h.engine);
  const calls: [SupervisorTool, Record<string, unknown>][] = [
    ['next', {}],
    ['suspend', {}],
    ['add_task', { title: 't', goal: 'g', sop_step_identifier: 'apiDesign' }],
    ['pre_analyze', { user_requirement: 'x' }],
    ['update_step_rules', { step_identifier: 'apiDesign', rules: [] }],
    ['create_project', { project_name: 'p', workspace_path: 'p' }],
  ];
  for (const [tool, args] of calls) assert.deepEqual(await stranger.fails(tool, args), { status: 'error', error_code: 'AUTH_001', message: '请先登录' }, tool);
  assert.deepEqual(await stranger.fails('logout'), { success: false, error_code: 'AUTH_001', message: '当前未登录' });

  const { agent: a, user, api_token } = await loggedInAgent(h);
  await a.ok('next');
  assert.deepEqual(await a.ok('logout'), { success: true, message: '成功登出' });
  assert.deepEqual(await a.fails('next'), { status: 'error', error_code: 'AUTH_001', message: '请先登录' });
  assert.equal((await a.fails('setup_workspace', { project_id: UNKNOWN_ID, workspace_path: 'w' })).error_code, 'AUTH_001');

  assert.equal((await a.fails('login', { username: user.username, api_token: `${api_token}x` })).error_code, 'AUTH_001');
  const other = await h.engine.store.createUser({ username: `other-${user.username}` });
  const mismatched = await a.fails('login', { username: other.user.username, api_token });
  assert.deepEqual({ ...mismatched, message: 'x' }, { success: false, error_code: 'AUTH_001', message: 'x' }, "a token logs in only as its own user");
  assert.deepEqual(await a.ok('login', { username: user.username, api_token }), { success: true, user_id: user.user_id, username: user.username });
});

test("a session logged in without a project answers the seed's project-context error", async () => {
  const { user, api_token } = await h.engine.store.createUser({ username: `noproject-${Date.now()}` });
  const a = agent(h.engine);
  await a.ok('login', { username: user.username, api_token });
  assert.deepEqual(await a.fails('next'), { status: 'error', message: 'No project context found. Please run setup_workspace or create_project first.' });
  assert.equal((await a.fails('create_project', { project_name: 'no workspace' })).error_code, 'VALIDATION_ERROR', 'a first project needs a workspace');
});

test("another user's project and task groups answer PERMISSION_DENIED, and the session keeps its own project", async () => {
  const alice = await loggedInAgent(h);
  const bob = await loggedInAgent(h);
  const bobsTask = await addTask(bob.agent, "bob's");
  await bob.agent.ok('start', { task_id: bobsTask });
  const bobsPhase = ((await bob.agent.ok('next')).task_phase as { id: string }).id;
  const before = await snapshot(h.redis, h.prefix);

  const login = await alice.agent.fails('login_with_project', { username: alice.user.username, api_token: alice.api_token, project_id: bob.project.project_id, workspace_path: 'alice-on-bob' });
  assert.deepEqual({ ...login, message: 'x' }, { success: false, error_code: 'PERMISSION_DENIED', message: 'x' });
  assert.equal((await alice.agent.fails('setup_workspace', { project_id: bob.project.project_id, workspace_path: 'alice-on-bob' })).error_code, 'PERMISSION_DENIED');
  for (const tool of ['start', 'finish_task', 'cancel_task', 'continue_suspended'] as const) {
    const refused = await alice.agent.fails(tool, { task_id: bobsTask });
    assert.deepEqual({ ...refused, message: 'x' }, { status: 'error', error_code: 'PERMISSION_DENIED', message: 'x' }, tool);
  }
  assert.equal((await alice.agent.fails('report', { task_phase_id: bobsPhase })).error_code, 'PERMISSION_DENIED');
  assert.deepEqual(await snapshot(h.redis, h.prefix), before, 'nothing was written');
  await assert.rejects(readdir(path.join(h.workspaceRoot, 'alice-on-bob')), 'no workspace was made for the refused project');
  assert.equal(((await alice.agent.ok('health')).checks as { project_context: boolean }).project_context, true, 'alice is still in her own project');
  assert.equal((await alice.agent.ok('add_task', { title: 'mine', goal: 'g', sop_step_identifier: 'apiDesign' })).status, 'success');
});

test('unknown projects, task groups and phases answer NOT_FOUND', async () => {
  const { agent: a, user, api_token } = await loggedInAgent(h);
  const login = await a.fails('login_with_project', { username: user.username, api_token, project_id: UNKNOWN_ID, workspace_path: 'w' });
  assert.equal(login.error_code, 'NOT_FOUND');
  assert.equal(login.success, false);
  for (const tool of ['start', 'finish_task', 'cancel_task', 'continue_suspended'] as const) {
    const refused = await a.fails(tool, { task_id: UNKNOWN_ID });
    assert.deepEqual({ ...refused, message: 'x' }, { status: 'error', error_code: 'NOT_FOUND', message: 'x' }, tool);
  }
  assert.deepEqual({ ...(await a.fails('report', { task_phase_id: UNKNOWN_ID })), message: 'x' }, { status: 'error', error_code: 'NOT_FOUND', message: 'x' });
});

test("bad arguments answer VALIDATION_ERROR naming the field, in each tool's failure shape, and write nothing", async () => {
  const { agent: a, user, api_token, project } = await loggedInAgent(h);
  const before = await snapshot(h.redis, h.prefix);
  const rootEntries = await readdir(h.workspaceRoot);

  const missing = await a.fails('add_task', { goal: 'g', sop_step_identifier: 'apiDesign' });
  assert.deepEqual({ ...missing, message: 'x' }, { status: 'error', error_code: 'VALIDATION_ERROR', message: 'x' });
  assert.match(String(missing.message), /^title: /);
  assert.match(String((await a.fails('add_task', { title: 't', goal: 'g', sop_step_identifier: 'nosuchStep' })).message), /^sop_step_identifier: /);
  assert.match(String((await a.fails('start', { task_id: UNKNOWN_ID, force: true })).message), /unknown argument force/);
  const escape = await a.fails('login_with_project', { username: user.username, api_token, project_id: project.project_id, workspace_path: '../../etc' });
  assert.equal(escape.error_code, 'VALIDATION_ERROR');
  assert.equal(escape.success, false);
  assert.match(String(escape.message), /^workspace_path: /);
  const created = await a.fails('create_project', { project_name: 'p', initial_tasks: [{ title: 'ok', goal: 'g', sop_step_identifier: 'apiDesign' }, { title: 'bad', goal: 'g', sop_step_identifier: 'nowhere' }] });
  assert.deepEqual(created, { status: 'error', error_code: 'VALIDATION_ERROR', error: 'initial_tasks[1].sop_step_identifier: the default SOP has no such step' });
  assert.equal((await a.fails('create_project', { project_name: 'p', workspace_path: '/etc' })).error_code, 'VALIDATION_ERROR');
  const rules = await a.fails('update_step_rules', { step_identifier: 'apiDesign', rules: 'one rule' });
  assert.deepEqual({ ...rules, message: String(rules.message).slice(0, 13) }, { status: 'error', message: '更新规则失败: rules', code: 'VALIDATION_ERROR' });
  assert.equal((await a.fails('pre_analyze', { user_requirement: '   ' })).error_code, 'VALIDATION_ERROR');

  assert.deepEqual(await snapshot(h.redis, h.prefix), before);
  assert.deepEqual(await readdir(h.workspaceRoot), rootEntries);
});

test("a start or finish the task group's status does not allow answers INVALID_STATUS", async () => {
  const { agent: a } = await loggedInAgent(h);
  const pending = await addTask(a, 'pending');
  assert.deepEqual(await a.fails('finish_task', { task_id: pending }), { status: 'error', error_code: 'INVALID_STATUS', message: '任务状态不满足完成条件：只有进行中的任务组可以完成（当前状态：待开始）' });
  await a.ok('start', { task_id: pending });
  assert.equal((await a.fails('start', { task_id: pending })).error_code, 'INVALID_STATUS', 'already in progress');
  assert.equal((await a.fails('finish_task', { task_id: pending })).message, '任务状态不满足完成条件：验证尚未通过');
  await a.ok('cancel_task', { task_id: pending });
  assert.equal((await a.fails('start', { task_id: pending })).error_code, 'INVALID_STATUS', 'a cancelled task group does not start');
  assert.equal((await a.fails('finish_task', { task_id: pending })).error_code, 'INVALID_STATUS', 'a cancelled task group does not finish');
});

test('a second task group started while one is in progress answers CONFLICT_IN_PROGRESS naming it', async () => {
  const { agent: a } = await loggedInAgent(h);
  const first = await addTask(a, '第一个任务');
  const second = await addTask(a, '第二个任务');
  await a.ok('start', { task_id: first });
  const before = await snapshot(h.redis, h.prefix);
  assert.deepEqual(await a.fails('start', { task_id: second }), { status: 'error', error_code: 'CONFLICT_IN_PROGRESS', message: '项目中已有进行中的任务：第一个任务' });
  assert.deepEqual(await snapshot(h.redis, h.prefix), before);
});

test('after the retrospective, next answers TASK_VALIDATION_ERROR with the task group until it is finished', async () => {
  const { agent: a } = await loggedInAgent(h);
  const task = await addTask(a);
  await a.ok('start', { task_id: task });
  for (const passed of [undefined, undefined, undefined, true, undefined]) {
    const phase = (await a.ok('next')).task_phase as { id: string };
    await a.ok('report', { task_phase_id: phase.id, ...(passed === undefined ? {} : { result_data: { passed } }) });
  }
  const refused = await a.fails('next');
  assert.equal(refused.error_code, 'TASK_VALIDATION_ERROR');
  assert.equal(refused.task_id, task);
  assert.match(String(refused.error), /finish_task/);
});

test('updating a step that does not exist answers UPDATE_FAILED; an existing one is updated', async () => {
  const { agent: a, project, workspace } = await loggedInAgent(h);
  assert.deepEqual(await a.fails('update_step_rules', { step_identifier: 'noSuchStep', rules: ['r'] }), { status: 'error', message: "更新规则失败: 项目的 SOP 中没有步骤 'noSuchStep'", code: 'UPDATE_FAILED' });
  assert.deepEqual(await a.fails('update_output_template', { step_identifier: 'noSuchStep', template: '# T' }), { status: 'error', message: "更新模板失败: 项目的 SOP 中没有步骤 'noSuchStep'", code: 'UPDATE_FAILED' });
  assert.equal(await h.redis.hexists(h.engine.store.keys.rules(project.project_id), 'noSuchStep'), 0);

  assert.deepEqual(await a.ok('update_step_rules', { step_identifier: 'apiDesign', rules: ['接口必须幂等'] }), { status: 'success', message: 'Rules updated successfully' });
  assert.deepEqual(await a.ok('update_output_template', { step_identifier: 'apiDesign', template: '# 新模板' }), { status: 'success', message: 'Template updated successfully' });
  const step = await h.engine.store.step(project.project_id, 'apiDesign');
  assert.deepEqual(step?.rules, ['接口必须幂等']);
  assert.equal(step?.output_template, '# 新模板');
  assert.equal(await readFile(path.join(workspace, 'supervisor_workspace', 'templates', 'apiDesign.md'), 'utf8'), '# 新模板', "the session's copy follows");
});
