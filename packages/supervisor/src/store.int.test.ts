import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createRedisClient, testRedis } from '@switchyard/redis';
import { defaultSop } from './default-sop.js';
import { SupervisorEngine } from './engine.js';
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

test('projects are listed by name from the index written with them, and a project made before the index is added to it once', async () => {
  // A prefix of its own: the file's other tests make projects too.
  const own = await harness();
  try {
    const store = own.engine.store;
    const beta = (await store.createProject({ owner_id: 'u1', project_name: 'Beta' }, NOW)).project;
    const alpha = (await store.createProject({ owner_id: 'u2', project_name: 'Alpha' }, NOW)).project;
    // Made by a version that kept no index: its hash only.
    await own.redis.hset(store.keys.project('legacy-1'), { project_id: 'legacy-1', project_name: 'Gamma', description: '', owner_id: 'u3', created_at: NOW });
    // Many other keys, as a deployment's Redis holds (runs, jobs): the project is found among them all.
    for (let i = 0; i < 30_000; i += 5000) {
      const pipeline = own.redis.pipeline();
      for (let j = i; j < i + 5000; j += 1) pipeline.set(`${own.prefix}:filler:${j}`, '1', 'EX', 300);
      await pipeline.exec();
    }

    const expected = [
      { id: alpha.project_id, name: 'Alpha' },
      { id: beta.project_id, name: 'Beta' },
      { id: 'legacy-1', name: 'Gamma' },
    ];
    assert.deepEqual(await store.listProjects(), expected);
    assert.equal(await own.redis.hget(store.keys.projects, 'legacy-1'), 'Gamma');
    // The backfill ran once: a hash written behind the index's back now is not looked for again.
    await own.redis.hset(store.keys.project('legacy-2'), { project_id: 'legacy-2', project_name: 'Delta', description: '', owner_id: 'u3', created_at: NOW });
    assert.deepEqual(await store.listProjects(), expected);
  } finally {
    await own.close();
  }
});

test('a project index backfill that cannot read the projects fails and is tried again, leaving no project out', async () => {
  const own = await harness();
  const { url } = await testRedis();
  const user = `sv-no-hget-${randomBytes(6).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  // A user that may not HGET: each read of the backfill fails (NOPERM), as a reply can.
  await own.redis.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-hget');
  const limited = createRedisClient(url.replace('://', `://${user}:${password}@`));
  try {
    await own.redis.hset(own.engine.store.keys.project('legacy-1'), { project_id: 'legacy-1', project_name: 'Gamma', description: '', owner_id: 'u3', created_at: NOW });
    const unread = new SupervisorEngine({ redis: limited, prefix: own.prefix, workspaceRoot: own.workspaceRoot });
    await assert.rejects(unread.store.listProjects(), /NOPERM/);
    assert.deepEqual(await own.engine.store.listProjects(), [{ id: 'legacy-1', name: 'Gamma' }]);
  } finally {
    limited.disconnect();
    await own.redis.call('ACL', 'DELUSER', user);
    await own.close();
  }
});
