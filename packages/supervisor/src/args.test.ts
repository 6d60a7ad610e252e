import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { describeIssue, SUPERVISOR_TOOLS, TOOL_ARGS, TOOL_DESCRIPTIONS } from './args.js';

const problem = (tool: keyof typeof TOOL_ARGS, args: unknown) => {
  const parsed = TOOL_ARGS[tool].safeParse(args);
  assert.ok(!parsed.success, `${tool} should refuse ${JSON.stringify(args)}`);
  return describeIssue(parsed.error);
};

test('the eighteen tools of the seed each have arguments and a description', () => {
  assert.deepEqual(SUPERVISOR_TOOLS, [
    'ping', 'login', 'login_with_project', 'logout', 'health', 'create_project', 'setup_workspace', 'next', 'report',
    'pre_analyze', 'add_task', 'cancel_task', 'finish_task', 'start', 'suspend', 'continue_suspended', 'update_step_rules', 'update_output_template',
  ]);
  for (const tool of SUPERVISOR_TOOLS) {
    assert.ok(TOOL_DESCRIPTIONS[tool].length > 20, tool);
    assert.equal((z.toJSONSchema(TOOL_ARGS[tool], { io: 'input' }) as { additionalProperties?: unknown }).additionalProperties, false, `${tool} refuses unknown arguments`);
  }
});

test('a refusal names the field, including a nested one', () => {
  assert.match(problem('add_task', { goal: 'g', sop_step_identifier: 'apiDesign' }), /^title: /);
  assert.match(problem('add_task', { title: '  ', goal: 'g', sop_step_identifier: 'apiDesign' }), /^title: must not be empty/);
  assert.match(problem('add_task', { title: 't', goal: 'g', sop_step_identifier: 'api design' }), /^sop_step_identifier: must be an SOP step identifier/);
  assert.match(problem('create_project', { project_name: 'p', initial_tasks: [{ title: 't', goal: 'g', sop_step_identifier: 'apiDesign' }, { title: 't', goal: '' }] }), /^initial_tasks\[1\]\.goal: /);
  assert.match(problem('start', { task_id: '../../etc' }), /^task_id: must be a task group id/);
});

test('unknown arguments are refused by name, at the top or inside result_data', () => {
  assert.equal(problem('next', { task_id: 'x' }), 'unknown argument task_id');
  assert.equal(problem('report', { task_phase_id: 'abc', result_data: { passed: true, notes: 'x' } }), 'result_data: unknown argument notes');
  assert.match(problem('report', { task_phase_id: 'abc', result_data: { passed: 'yes' } }), /^result_data\.passed: /);
});

test('a workspace path with a NUL byte is refused before it reaches the file system', () => {
  assert.match(problem('setup_workspace', { project_id: 'p', workspace_path: 'a\0b' }), /^workspace_path: must not contain NUL/);
});
