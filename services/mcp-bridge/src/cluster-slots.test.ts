import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aceflowKeys } from '@switchyard/aceflow';
import { moduleDocsKeys } from '@switchyard/module-docs';
import { keySlot } from '@switchyard/redis';
import { supervisorKeys } from '@switchyard/supervisor';
import { sessionKeys } from './http/keys.js';

const slotsOf = (list: readonly string[]) => new Set(list.map(keySlot));

test("every key the Supervisor's scripts and transactions take is in the Supervisor's one slot", () => {
  const k = supervisorKeys('{sy}');
  const all = [k.user('u'), k.userProjects('u'), k.username('ada'), k.token('f00'), k.project('p'), k.steps('p'), k.rules('p'), k.templates('p'), k.tasks('p'), k.inProgress('p'), k.task('t1'), k.task('t2'), k.taskPhases('t1'), k.phase('ph'), k.sequence];
  assert.equal(slotsOf(all).size, 1);
  assert.notEqual(keySlot(k.task('t1')), keySlot('{sy}:runs'), 'not the queues\' slot');
});

test("AceFlow's project keys and its workspace index share a slot (the open script claims both)", () => {
  const a = aceflowKeys('{sy}', 'shop');
  const b = aceflowKeys('sy', 'blog');
  assert.equal(slotsOf([a.project, a.analysis, a.outputs, a.prepared, a.workspaces, b.project, b.workspaces]).size, 1);
});

test("module docs keep each project's keys in a slot of its own, and projects spread", () => {
  const names = Array.from({ length: 50 }, (_, i) => `project-${i}`);
  for (const name of names) assert.equal(slotsOf(Object.values(moduleDocsKeys('{sy}', name))).size, 1, name);
  assert.ok(slotsOf(names.map((name) => moduleDocsKeys('{sy}', name).modules)).size > 40);
});

test("an MCP session's record, state, streams, requests and tasks share its slot, and sessions spread", () => {
  const sessions = Array.from({ length: 50 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  for (const id of sessions) {
    const k = sessionKeys('{sy}', id);
    assert.equal(slotsOf([k.record, k.state, k.stream('s1'), k.request('s1'), k.tasks, k.task('t1')]).size, 1, id);
  }
  assert.ok(slotsOf(sessions.map((id) => sessionKeys('{sy}', id).record)).size > 40);
});
