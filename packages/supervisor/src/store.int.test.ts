import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { defaultSop } from './default-sop.js';
import { SopGraphError } from './sop.js';
import { SupervisorStoreError } from './store.js';
import { harness, snapshot, type Harness } from './test-kit.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h.close());

const NOW = '2024-01-20T10:30:00Z';

test('an API token is kept only as its sha256, and logs in only with its own username', async () => {
  const { user, api_token } = await h.engine.store.createUser({ username: 'carol' });
  assert.match(api_token, /^sv_[A-Za-z0-9_-]{32}$/);
  const everything = JSON.stringify(await snapshot(h.redis, h.prefix));
  assert.ok(!everything.includes(api_token), 'the token itself is nowhere in Redis');
  assert.equal(await h.redis.get(h.engine.store.keys.token(createHash('sha256').update(api_token).digest('hex'))), user.user_id);

  assert.deepEqual(await h.engine.store.authenticate('carol', api_token), user);
  assert.equal(await h.engine.store.authenticate('dave', api_token), undefined);
  assert.equal(await h.engine.store.authenticate('carol', `${api_token}x`), undefined);
});

test('a username is taken once, and a malformed one is refused', async () => {
  await h.engine.store.createUser({ username: 'erin' });
  const before = await snapshot(h.redis, h.prefix);
  await assert.rejects(h.engine.store.createUser({ username: 'erin' }), (e: unknown) => e instanceof SupervisorStoreError && /taken/.test(e.message));
  await assert.rejects(h.engine.store.createUser({ username: 'has space' }), SupervisorStoreError);
  assert.deepEqual(await snapshot(h.redis, h.prefix), before);
});

test("a new project holds the default SOP in order, with each step's rules and template", async () => {
  const { user } = await h.engine.store.createUser({ username: 'frank' });
  const { project, steps, tasks } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: 'Shop', initial_tasks: [{ title: 't', goal: 'g', sop_step_identifier: 'testing' }] }, NOW);
  assert.equal(steps.length, 10);
  assert.deepEqual(await h.engine.store.steps(project.project_id), defaultSop().steps);
  assert.deepEqual(await h.engine.store.getProject(project.project_id), { project_id: project.project_id, project_name: 'Shop', description: '', owner_id: user.user_id, created_at: NOW });
  assert.deepEqual(await h.redis.smembers(h.engine.store.keys.userProjects(user.user_id)), [project.project_id]);
  assert.deepEqual((await h.engine.store.tasks.list(project.project_id)).map((t) => [t.task_id, t.status]), [[tasks[0]?.task_id, 'PENDING']]);
});

test('a project with a broken SOP graph, or an initial task on a missing step, is refused before anything is written', async () => {
  const { user } = await h.engine.store.createUser({ username: 'grace' });
  const before = await snapshot(h.redis, h.prefix);
  const cyclic = defaultSop();
  cyclic.steps[0]?.dependencies.push('deployment');
  await assert.rejects(h.engine.store.createProject({ owner_id: user.user_id, project_name: 'x', sop: cyclic }, NOW), SopGraphError);
  await assert.rejects(h.engine.store.createProject({ owner_id: user.user_id, project_name: 'x', initial_tasks: [{ title: 't', goal: 'g', sop_step_identifier: 'nope' }] }, NOW), SupervisorStoreError);
  assert.deepEqual(await snapshot(h.redis, h.prefix), before);
});

test('task groups list oldest first, across the project only', async () => {
  const { user } = await h.engine.store.createUser({ username: 'heidi' });
  const { project: p1 } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: 'one' }, NOW);
  const { project: p2 } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: 'two' }, NOW);
  for (const title of ['a', 'b', 'c']) await h.engine.store.tasks.add(p1.project_id, { title, goal: 'g', sop_step_identifier: 'testing' }, NOW);
  await h.engine.store.tasks.add(p2.project_id, { title: 'elsewhere', goal: 'g', sop_step_identifier: 'testing' }, NOW);
  assert.deepEqual((await h.engine.store.tasks.list(p1.project_id)).map((t) => t.title), ['a', 'b', 'c']);
});
