import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { harness, loggedInAgent, snapshot, type Agent, type Harness } from './test-kit.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h.close());

const SEED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const instructionFiles = async (workspace: string) => (await readdir(path.join(workspace, 'supervisor_workspace', 'current_task')).catch(() => [] as string[])).filter((f) => f.endsWith('.md')).sort();

async function addTask(a: Agent, title: string, sop_step_identifier = 'apiDesign') {
  const added = await a.ok('add_task', { title, goal: `Goal of ${title}`, sop_step_identifier });
  return (added.data as { task_id: string }).task_id;
}

interface TaskPhase {
  id: string;
  title: string;
  type: string;
  status: string;
  task_id: string;
  order: number;
  description: string;
}
const nextPhase = async (a: Agent) => {
  const answer = await a.ok('next');
  assert.equal(answer.status, 'success', JSON.stringify(answer));
  return answer.task_phase as TaskPhase;
};

test('a task group goes from PENDING through every phase, a failed validation and its fix, to COMPLETED', async () => {
  const { agent: a, workspace } = await loggedInAgent(h);
  const added = await a.ok('add_task', { title: '用户登录接口', goal: '设计并实现登录 API', sop_step_identifier: 'apiDesign' });
  assert.equal(added.status, 'success');
  const data = added.data as Record<string, string>;
  assert.deepEqual({ ...data, task_id: 'x', created_at: 'x' }, { task_id: 'x', title: '用户登录接口', goal: '设计并实现登录 API', sop_step_identifier: 'apiDesign', status: 'PENDING', created_at: 'x' });
  assert.match(data.created_at ?? '', SEED_TIME);
  const taskId = data.task_id ?? '';

  assert.deepEqual(await a.ok('next'), { status: 'no_available_tasks', message: '当前没有可执行的任务' }, 'a PENDING task group has no phase to work on');
  const started = await a.ok('start', { task_id: taskId });
  assert.equal(started.status, 'success');
  assert.equal(started.message, '任务已成功启动');
  assert.deepEqual({ ...(started.data as object), started_at: 'x' }, { task_id: taskId, title: '用户登录接口', previous_status: 'PENDING', new_status: 'IN_PROGRESS', started_at: 'x' });

  const walk: [string, { passed: boolean } | undefined][] = [
    ['UNDERSTANDING', undefined],
    ['PLANNING', undefined],
    ['IMPLEMENTING', undefined],
    ['VALIDATION', { passed: false }],
    ['FIXING', undefined],
    ['VALIDATION', { passed: true }],
    ['RETROSPECTIVE', undefined],
  ];
  for (const [index, [type, result_data]] of walk.entries()) {
    const order = index + 1;
    const phase = await nextPhase(a);
    assert.equal(phase.type, type);
    assert.equal(phase.order, order);
    assert.equal(phase.status, 'IN_PROGRESS');
    assert.equal(phase.task_id, taskId);
    const file = `${String(order).padStart(2, '0')}_${type.toLowerCase()}_instructions.md`;
    assert.equal(phase.description, `任务阶段详情已保存到本地文件：\n文件路径：supervisor_workspace/current_task/${file}\n请查看该文件获取完整的任务阶段说明和要求。`);
    const instructions = await readFile(path.join(workspace, 'supervisor_workspace', 'current_task', file), 'utf8');
    assert.ok(instructions.includes(phase.id) && instructions.includes('设计并实现登录 API') && instructions.includes('接口设计'), 'the file names the phase, the goal and the SOP step');
    assert.equal((await nextPhase(a)).id, phase.id, 'next before report answers the same phase');

    if (type === 'IMPLEMENTING') {
      const early = await a.fails('finish_task', { task_id: taskId });
      assert.equal(early.error_code, 'INVALID_STATUS', 'a task group cannot finish before its validation passed');
    }
    if (type === 'FIXING') assert.ok(instructions.includes('第 4 个阶段'), 'the fix names the failed validation');
    const reported = await a.ok('report', { task_phase_id: phase.id, ...(result_data ? { result_data } : {}) });
    assert.deepEqual(reported, { status: 'success', data: { id: phase.id, title: phase.title, status: 'COMPLETED', result: result_data ?? null } });
  }
  assert.deepEqual(
    await instructionFiles(workspace),
    walk.map(([type], i) => `0${i + 1}_${type.toLowerCase()}_instructions.md`),
  );

  const done = await a.fails('next');
  assert.deepEqual({ ...done, error: 'x' }, { status: 'error', error_code: 'TASK_VALIDATION_ERROR', error: 'x', task_id: taskId });

  const finished = await a.ok('finish_task', { task_id: taskId });
  assert.equal(finished.status, 'success');
  assert.equal(finished.message, '任务已成功标记为完成');
  assert.deepEqual({ ...(finished.data as object), completed_at: 'x' }, { task_id: taskId, title: '用户登录接口', previous_status: 'IN_PROGRESS', new_status: 'COMPLETED', completed_at: 'x' });
  assert.deepEqual(await instructionFiles(workspace), [], 'a finished task group leaves no instructions behind');

  const before = await snapshot(h.redis, h.prefix);
  assert.deepEqual(await a.ok('finish_task', { task_id: taskId }), { status: 'info', message: '任务已经处于完成状态', data: { task_id: taskId, title: '用户登录接口', status: 'COMPLETED' } });
  assert.deepEqual(await snapshot(h.redis, h.prefix), before, 'finishing again changes nothing');
  assert.deepEqual(await a.ok('next'), { status: 'no_available_tasks', message: '当前没有可执行的任务' });
});

test('reporting result data outside VALIDATION, or none on VALIDATION, is a VALIDATION_ERROR that changes nothing', async () => {
  const { agent: a } = await loggedInAgent(h);
  await a.ok('start', { task_id: await addTask(a, 'strict report') });
  const understanding = await nextPhase(a);
  const before = await snapshot(h.redis, h.prefix);
  const withData = await a.fails('report', { task_phase_id: understanding.id, result_data: { passed: true } });
  assert.deepEqual(withData, { error: 'result_data: a UNDERSTANDING phase is reported without result data', error_code: 'VALIDATION_ERROR' });
  assert.deepEqual(await snapshot(h.redis, h.prefix), before);

  await a.ok('report', { task_phase_id: understanding.id });
  for (let phase = await nextPhase(a); phase.type !== 'VALIDATION'; phase = await nextPhase(a)) await a.ok('report', { task_phase_id: phase.id });
  const validation = await nextPhase(a);
  assert.equal(validation.type, 'VALIDATION');
  const mid = await snapshot(h.redis, h.prefix);
  assert.equal((await a.fails('report', { task_phase_id: validation.id })).error_code, 'VALIDATION_ERROR');
  assert.equal((await a.fails('report', { task_phase_id: validation.id, result_data: {} })).error_code, 'VALIDATION_ERROR');
  assert.equal((await a.fails('report', { task_phase_id: validation.id, result_data: { passed: 'yes' } })).error_code, 'VALIDATION_ERROR');
  assert.equal((await a.fails('report', { task_phase_id: validation.id, result_data: { passed: true, extra: 1 } })).error_code, 'VALIDATION_ERROR');
  assert.equal((await a.fails('report', { task_phase_id: validation.id, result: { passed: true } })).error_code, 'VALIDATION_ERROR');
  assert.deepEqual(await snapshot(h.redis, h.prefix), mid);
});

test('a phase reported twice is INVALID_STATUS the second time', async () => {
  const { agent: a } = await loggedInAgent(h);
  await a.ok('start', { task_id: await addTask(a, 'twice') });
  const phase = await nextPhase(a);
  await a.ok('report', { task_phase_id: phase.id });
  const again = await a.fails('report', { task_phase_id: phase.id });
  assert.equal(again.error_code, 'INVALID_STATUS');
  assert.equal(typeof again.error, 'string');
});

test('cancelling the task group in progress starts the oldest PENDING one, and cancelling again is only info', async () => {
  const { agent: a, workspace } = await loggedInAgent(h);
  const first = await addTask(a, 'first');
  const second = await addTask(a, 'second');
  const third = await addTask(a, 'third');
  await a.ok('start', { task_id: first });
  await nextPhase(a);
  assert.equal((await instructionFiles(workspace)).length, 1);

  const cancelled = await a.ok('cancel_task', { task_id: first, cancellation_reason: '需求变更' });
  assert.equal(cancelled.status, 'success');
  assert.equal(cancelled.message, '任务组已成功取消: first');
  assert.deepEqual({ ...(cancelled.cancelled_task as object), cancelled_at: 'x' }, { id: first, title: 'first', status: 'CANCELLED', cancelled_at: 'x', cancellation_reason: '需求变更' });
  assert.deepEqual(cancelled.auto_switched_to, { id: second, title: 'second', status: 'IN_PROGRESS' });
  assert.deepEqual(await instructionFiles(workspace), [], "the cancelled task group's instructions are gone");
  assert.equal((await nextPhase(a)).task_id, second, 'the switched-to task group is the one in progress');

  const before = await snapshot(h.redis, h.prefix);
  assert.deepEqual(await a.ok('cancel_task', { task_id: first }), { status: 'info', message: '该任务已经是取消状态' });
  assert.deepEqual(await snapshot(h.redis, h.prefix), before, 'cancelling again changes nothing');

  const pending = await a.ok('cancel_task', { task_id: third });
  assert.equal(pending.auto_switched_to, undefined, 'cancelling a PENDING task group switches nothing');
  assert.equal((pending.cancelled_task as { cancellation_reason: unknown }).cancellation_reason, null);
  assert.equal((await nextPhase(a)).task_id, second);
});
