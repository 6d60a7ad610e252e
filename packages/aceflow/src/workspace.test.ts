import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { AceflowError } from './errors.js';
import { listTree, scratchDir } from './test-support.js';
import { Workspaces, workspacePath } from './workspace.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let root: string;
let outside: string;
let workspaces: Workspaces;

beforeEach(async () => {
  scratch = await scratchDir('workspace');
  root = path.join(scratch.dir, 'root');
  outside = path.join(scratch.dir, 'outside');
  await mkdir(root);
  await mkdir(outside);
  workspaces = new Workspaces({ root });
});
afterEach(() => scratch.remove());

const refused = async (promise: Promise<unknown>) => {
  await assert.rejects(promise, (error: unknown) => error instanceof AceflowError && error.code === 'INVALID_DATA');
};

test('a workspace is a relative path of safe segments; anything else is refused naming the field', () => {
  assert.equal(workspacePath('shop'), 'shop');
  assert.equal(workspacePath('shop', 'team-a/shop.v2'), 'team-a/shop.v2');
  const attempts = ['../x', '..', '.', 'a/../b', '/etc', '/tmp/x', 'a//b', 'a/', 'a\\..\\b', '%2e%2e', '%2e%2e/x', '..%2fx', '.hidden', '~', 'a b', 'a/b/c/d/e/f/g/h/i', ''];
  for (const attempt of attempts) {
    assert.throws(() => workspacePath('shop', attempt), (error: unknown) => error instanceof AceflowError && error.code === 'INVALID_DATA' && error.details.field === 'project.workspace', attempt);
  }
  assert.throws(() => workspacePath('../shop'), (error: unknown) => error instanceof AceflowError && error.details.field === 'project.name');
});

test('an output is written to {workspace}/aceflow_result/{stage}.md, whole, with no temporary file left', async () => {
  const file = await workspaces.writeOutput('team/shop', 's1_user_story', '# Stories\n');
  assert.equal(file, path.join(root, 'team', 'shop', 'aceflow_result', 's1_user_story.md'));
  assert.equal(await readFile(file, 'utf8'), '# Stories\n');
  await workspaces.writeOutput('team/shop', 's1_user_story', '# Stories, again\n');
  assert.equal(await readFile(file, 'utf8'), '# Stories, again\n');
  assert.deepEqual(await listTree(root), ['team', 'team/shop', 'team/shop/aceflow_result', 'team/shop/aceflow_result/s1_user_story.md']);
});

test('a traversal in the workspace or the stage id writes nothing anywhere', async () => {
  for (const attempt of ['../outside', '/tmp', '%2e%2e/outside', 'a/../../outside']) await refused(workspaces.writeOutput(attempt, 's1_user_story', 'x'));
  await refused(workspaces.writeOutput('shop', '../../outside/s1_user_story' as never, 'x'));
  assert.deepEqual(await listTree(scratch.dir), ['outside', 'root']);
});

test('a symbolic link planted as the workspace and leading out of the root is refused before anything is created', async () => {
  await symlink(outside, path.join(root, 'shop'));
  await refused(workspaces.writeOutput('shop', 's1_user_story', 'x'));
  assert.deepEqual(await listTree(outside), []);
});

test('a planted aceflow_result link, or a link at the output file, is refused and the target is untouched', async () => {
  await mkdir(path.join(root, 'shop'));
  await symlink(outside, path.join(root, 'shop', 'aceflow_result'));
  await refused(workspaces.writeOutput('shop', 's1_user_story', 'x'));
  assert.deepEqual(await listTree(outside), []);

  await mkdir(path.join(root, 'cafe', 'aceflow_result'), { recursive: true });
  const victim = path.join(outside, 'victim.md');
  await writeFile(victim, 'original');
  await symlink(victim, path.join(root, 'cafe', 'aceflow_result', 's2_tasks_group.md'));
  await refused(workspaces.writeOutput('cafe', 's2_tasks_group', 'overwritten'));
  assert.equal(await readFile(victim, 'utf8'), 'original');
  assert.deepEqual(await listTree(outside), ['victim.md']);
});

test('a dangling link is refused; a link that stays inside the root is followed', async () => {
  await symlink(path.join(scratch.dir, 'nowhere'), path.join(root, 'ghost'));
  await refused(workspaces.writeOutput('ghost', 's1_user_story', 'x'));
  assert.deepEqual(await listTree(scratch.dir).then((all) => all.filter((entry) => !entry.startsWith('root'))), ['outside']);

  await mkdir(path.join(root, 'real'));
  await symlink(path.join(root, 'real'), path.join(root, 'alias'));
  const file = await workspaces.writeOutput('alias', 's1_user_story', 'inside');
  assert.equal(await readFile(path.join(root, 'real', 'aceflow_result', 's1_user_story.md'), 'utf8'), 'inside');
  assert.equal(file, path.join(root, 'real', 'aceflow_result', 's1_user_story.md'));
});
