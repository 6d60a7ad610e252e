import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { harness, loggedInAgent, type Agent, type Harness } from './test-kit.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h.close());

const list = (dir: string) => readdir(dir).then((files) => files.filter((f) => f.endsWith('.md')).sort(), () => [] as string[]);
const addTask = async (a: Agent, title: string) => ((await a.ok('add_task', { title, goal: `${title} goal`, sop_step_identifier: 'dataModel' })).data as { task_id: string }).task_id;
const next = async (a: Agent) => (await a.ok('next')).task_phase as { id: string; type: string; order: number; task_id: string };

test('suspending sets the instructions aside, another task group runs meanwhile, and resuming brings them back', async () => {
  const { agent: a, workspace } = await loggedInAgent(h);
  const current = path.join(workspace, 'supervisor_workspace', 'current_task');
  const first = await addTask(a, '订单表设计');
  const second = await addTask(a, '紧急修复');
  await a.ok('start', { task_id: first });
  await a.ok('report', { task_phase_id: (await next(a)).id });
  const planning = await next(a);
  const firstFiles = ['01_understanding_instructions.md', '02_planning_instructions.md'];
  assert.deepEqual(await list(current), firstFiles);
  const planningText = await readFile(path.join(current, firstFiles[1] ?? ''), 'utf8');

  const suspended = await a.ok('suspend');
  assert.equal(suspended.status, 'success');
  assert.equal(suspended.message, '任务已成功暂存');
  assert.deepEqual({ ...(suspended.data as object), suspended_at: 'x' }, { task_id: first, title: '订单表设计', previous_status: 'IN_PROGRESS', new_status: 'SUSPENDED', suspended_at: 'x' });
  assert.deepEqual(await list(current), [], 'current_task no longer holds the suspended task group');
  assert.deepEqual(await list(path.join(workspace, 'supervisor_workspace', 'suspended_tasks', first)), firstFiles);
  assert.deepEqual(await a.ok('next'), { status: 'no_available_tasks', message: '当前没有可执行的任务' });
  assert.deepEqual(await a.ok('suspend'), { status: 'info', message: '当前没有正在进行的任务可以暂存' });
  assert.equal((await a.fails('start', { task_id: first })).error_code, 'INVALID_STATUS', 'a suspended task group is resumed, not started');

  await a.ok('start', { task_id: second });
  assert.equal((await next(a)).task_id, second);
  assert.deepEqual(await list(current), ['01_understanding_instructions.md']);
  const blocked = await a.fails('continue_suspended', { task_id: first });
  assert.deepEqual(blocked, { status: 'error', error_code: 'CONFLICT_IN_PROGRESS', message: '项目中已有进行中的任务：紧急修复' });
  await a.ok('cancel_task', { task_id: second });

  const resumed = await a.ok('continue_suspended', { task_id: first });
  assert.equal(resumed.message, '任务已成功恢复');
  assert.deepEqual({ ...(resumed.data as object), resumed_at: 'x' }, { task_id: first, title: '订单表设计', previous_status: 'SUSPENDED', new_status: 'IN_PROGRESS', resumed_at: 'x' });
  assert.deepEqual(await list(current), firstFiles, "the first task group's files are back");
  assert.equal(await readFile(path.join(current, firstFiles[1] ?? ''), 'utf8'), planningText);
  assert.deepEqual(await list(path.join(workspace, 'supervisor_workspace', 'suspended_tasks', first)), []);
  const again = await next(a);
  assert.deepEqual([again.id, again.type, again.order], [planning.id, 'PLANNING', 2], 'work resumes at the phase it stopped in');

  assert.equal((await a.fails('continue_suspended', { task_id: first })).error_code, 'INVALID_STATUS', 'only a suspended task group can be resumed');
});

test('a suspended task group cannot report its phase until it is resumed', async () => {
  const { agent: a } = await loggedInAgent(h);
  const task = await addTask(a, 'paused');
  await a.ok('start', { task_id: task });
  const phase = await next(a);
  await a.ok('suspend');
  const refused = await a.fails('report', { task_phase_id: phase.id });
  assert.equal(refused.error_code, 'INVALID_STATUS');
  await a.ok('continue_suspended', { task_id: task });
  await a.ok('report', { task_phase_id: phase.id });
});

test('a suspended task group can be cancelled, and its set-aside files go with it', async () => {
  const { agent: a, workspace } = await loggedInAgent(h);
  const task = await addTask(a, 'dropped');
  await a.ok('start', { task_id: task });
  await next(a);
  await a.ok('suspend');
  const aside = path.join(workspace, 'supervisor_workspace', 'suspended_tasks', task);
  assert.equal((await list(aside)).length, 1);
  await a.ok('cancel_task', { task_id: task });
  assert.deepEqual(await list(aside), []);
});
