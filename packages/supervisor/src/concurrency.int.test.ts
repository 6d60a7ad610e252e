import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { agent, harness, loggedInAgent, type Agent, type Harness } from './test-kit.js';

// Two engines on two Redis connections stand for two bridge processes serving one project.
let one: Harness;
let two: Harness;
let a: Agent;
let b: Agent;
let projectId: string;

before(async () => {
  one = await harness();
  two = await harness({ prefix: one.prefix, workspaceRoot: one.workspaceRoot });
  const first = await loggedInAgent(one, { workspace: 'a' });
  a = first.agent;
  projectId = first.project.project_id;
  b = agent(two.engine);
  await b.ok('login_with_project', { username: first.user.username, api_token: first.api_token, project_id: projectId, workspace_path: 'b' });
});
after(async () => {
  await one.close();
  await two.close();
});

const ROUNDS = 60;
const addTask = async (who: Agent, title: string) => ((await who.ok('add_task', { title, goal: 'race', sop_step_identifier: 'testing' })).data as { task_id: string }).task_id;
const inProgressCount = async () => (await one.engine.store.tasks.list(projectId)).filter((t) => t.status === 'IN_PROGRESS').length;

test('concurrent start calls from two sessions leave exactly one task group in progress', async () => {
  for (let round = 0; round < ROUNDS; round += 1) {
    const [x, y] = await Promise.all([addTask(a, `a${round}`), addTask(b, `b${round}`)]);
    const [fromA, fromB] = await Promise.all([a.call('start', { task_id: x }), b.call('start', { task_id: y })]);
    const winners = [fromA, fromB].filter((reply) => !reply.isError);
    assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify([fromA.content, fromB.content])}`);
    const loser = [fromA, fromB].find((reply) => reply.isError);
    assert.equal(loser?.content.error_code, 'CONFLICT_IN_PROGRESS');
    assert.equal(await inProgressCount(), 1);
    // The loser first, so that cancelling the winner has no PENDING task group to switch to.
    const [winnerId, loserId] = winners[0] === fromA ? [x, y] : [y, x];
    await a.ok('cancel_task', { task_id: loserId });
    await b.ok('cancel_task', { task_id: winnerId });
    assert.equal(await inProgressCount(), 0);
  }
});

test('two sessions starting the same task group at once: one starts it, the other is told it is no longer PENDING', async () => {
  for (let round = 0; round < ROUNDS / 3; round += 1) {
    const task = await addTask(a, `same${round}`);
    const replies = await Promise.all([a.call('start', { task_id: task }), b.call('start', { task_id: task })]);
    assert.deepEqual(replies.map((r) => r.isError === true).sort(), [false, true]);
    assert.equal(replies.find((r) => r.isError)?.content.error_code, 'INVALID_STATUS');
    await a.ok('cancel_task', { task_id: task });
  }
  assert.equal(await inProgressCount(), 0);
});

test('two sessions calling next at once open one phase, not two', async () => {
  const task = await addTask(a, 'shared next');
  await a.ok('start', { task_id: task });
  for (let step = 0; step < 4; step += 1) {
    const [fromA, fromB] = await Promise.all([a.ok('next'), b.ok('next')]);
    const [phaseA, phaseB] = [fromA.task_phase, fromB.task_phase] as { id: string; order: number }[];
    assert.equal(phaseA?.id, phaseB?.id);
    assert.equal(phaseA?.order, step + 1);
    await a.ok('report', { task_phase_id: phaseA?.id, ...(step === 3 ? { result_data: { passed: true } } : {}) });
  }
  assert.equal((await one.engine.store.tasks.phases(task)).length, 4);
});
