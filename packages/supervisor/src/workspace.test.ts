import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, realpath, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SupervisorError } from './domain.js';
import { resolveWorkspace, Workspace } from './workspace.js';

const tempDir = async (label: string) => realpath(await mkdtemp(path.join(os.tmpdir(), `supervisor-${label}-`)));
const refusedPath = (e: unknown) => e instanceof SupervisorError && e.code === 'VALIDATION_ERROR' && e.message.startsWith('workspace_path:');
const entries = (dir: string) => readdir(dir).catch(() => [] as string[]);

test('a relative or absolute workspace inside the root is created and returned absolute', async () => {
  const root = await tempDir('root');
  assert.equal(await resolveWorkspace(root, 'alice/app'), path.join(root, 'alice', 'app'));
  assert.equal(await resolveWorkspace(root, path.join(root, 'bob')), path.join(root, 'bob'));
  assert.deepEqual((await entries(root)).sort(), ['alice', 'bob']);
});

test('a workspace escaping the root with .. or an absolute path is refused and nothing is created', async () => {
  const parent = await tempDir('parent');
  const root = path.join(parent, 'root');
  await assert.rejects(resolveWorkspace(root, '../outside'), refusedPath);
  await assert.rejects(resolveWorkspace(root, 'a/../../outside'), refusedPath);
  await assert.rejects(resolveWorkspace(root, path.join(parent, 'elsewhere')), refusedPath);
  assert.deepEqual(await entries(parent), ['root']);
  assert.deepEqual(await entries(root), []);
});

test('a workspace reached through a symlink leaving the root is refused and nothing is created outside', async () => {
  const root = await tempDir('root');
  const outside = await tempDir('outside');
  await symlink(outside, path.join(root, 'link'));
  await assert.rejects(resolveWorkspace(root, 'link/project'), refusedPath);
  assert.deepEqual(await entries(outside), []);
});

test('instructions of another task group are cleared before a new one writes into current_task', async () => {
  const ws = new Workspace(await tempDir('ws'));
  await ws.writeInstructions('task-a', '01_understanding_instructions.md', 'a1');
  await ws.writeInstructions('task-a', '02_planning_instructions.md', 'a2');
  assert.deepEqual((await entries(ws.currentTaskDir)).filter((f) => f.endsWith('.md')), ['01_understanding_instructions.md', '02_planning_instructions.md']);
  await ws.writeInstructions('task-b', '01_understanding_instructions.md', 'b1');
  assert.deepEqual((await entries(ws.currentTaskDir)).filter((f) => f.endsWith('.md')), ['01_understanding_instructions.md']);
  assert.equal(await readFile(path.join(ws.currentTaskDir, '01_understanding_instructions.md'), 'utf8'), 'b1');
});

test('setting aside and bringing back moves the instructions of that task group only', async () => {
  const ws = new Workspace(await tempDir('ws'));
  await ws.writeInstructions('task-a', '01_understanding_instructions.md', 'a1');
  assert.equal(await ws.setAside('task-b'), false, 'task-b has nothing here');
  assert.equal(await ws.setAside('task-a'), true);
  assert.deepEqual(await entries(ws.currentTaskDir), []);
  assert.equal(await readFile(path.join(ws.suspendedDir('task-a'), '01_understanding_instructions.md'), 'utf8'), 'a1');
  await mkdir(ws.currentTaskDir, { recursive: true });
  assert.equal(await ws.bringBack('task-a'), true);
  assert.equal(await readFile(path.join(ws.currentTaskDir, '01_understanding_instructions.md'), 'utf8'), 'a1');
  assert.deepEqual(await entries(ws.suspendedDir('task-a')), []);
  assert.equal(await ws.bringBack('task-a'), false, 'nothing left to bring back');
});

test('templates with content are written, one file per step, and counted', async () => {
  const ws = new Workspace(await tempDir('ws'));
  const count = await ws.writeTemplates([
    { identifier: 'a', output_template: '# A' },
    { identifier: 'b', output_template: '  ' },
  ]);
  assert.equal(count, 1);
  assert.equal(await readFile(ws.templatePath('a'), 'utf8'), '# A');
  await assert.rejects(readFile(ws.templatePath('b'), 'utf8'));
});
