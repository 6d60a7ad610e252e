/**
 * The Supervisor suite (seed 002): the eighteen tools of a supervised way of working — log in to a
 * project, add task groups on its SOP steps, and work each one phase by phase (next / report) —
 * served by the Supervisor engine, whose state is in Redis. Who is logged in, to which project and
 * workspace, is the MCP session's state. Every answer is the seed's object; a refusal is an
 * `isError` result in the tool's own failure shape.
 */
import { describeIssue, failureOf, SUPERVISOR_TOOLS, SupervisorEngine, SupervisorError, TOOL_ARGS, TOOL_DESCRIPTIONS, TOOL_OUTPUTS, type SupervisorEngineOptions, type SupervisorTool } from '@switchyard/supervisor';
import { jsonSchemaOf, type ToolAnnotations, type ToolSuite } from '@switchyard/tool-suite';

// Repeating a call with the same arguments changes nothing more for every tool but the two that
// create something (create_project, add_task): the others answer "info" or the same state again.
const read = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, idempotentHint: true, openWorldHint: false });
const write = (title: string, extra: Partial<ToolAnnotations> = {}): ToolAnnotations => ({ title, readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, ...extra });

const ANNOTATIONS: Record<SupervisorTool, ToolAnnotations> = {
  ping: read('Ping the Supervisor'),
  login: write('Log in (deprecated)'),
  login_with_project: write('Log in to a project'),
  logout: write('Log out'),
  health: read('Check the Supervisor'),
  create_project: write('Create a project', { idempotentHint: false }),
  setup_workspace: write('Set up the workspace (deprecated)'),
  next: write('Get the phase to work on'),
  report: write('Report the current phase'),
  pre_analyze: read('Recommend SOP steps for a requirement'),
  add_task: write('Add a task group', { idempotentHint: false }),
  cancel_task: write('Cancel a task group', { destructiveHint: true }),
  finish_task: write('Finish a task group'),
  start: write('Start a task group'),
  suspend: write('Suspend the task group in progress'),
  continue_suspended: write('Resume a suspended task group'),
  update_step_rules: write("Replace an SOP step's rules", { destructiveHint: true }),
  update_output_template: write("Replace an SOP step's output template", { destructiveHint: true }),
};

/** @param deps the engine's options: Redis, key prefix, workspace root… (see SupervisorEngineOptions for defaults) */
export function supervisorSuite(deps: SupervisorEngineOptions): ToolSuite {
  const engine = new SupervisorEngine(deps);
  return {
    name: 'supervisor',
    description:
      'Supervisor (seed 002): projects with an SOP (需求分析 → 设计语言系统 → 系统分析 → 技术实现 → 测试验证 → 部署发布), task groups worked phase by phase ' +
      '(UNDERSTANDING → PLANNING → IMPLEMENTING → VALIDATION → RETROSPECTIVE, FIXING after a failed validation), one task group in progress per project. ' +
      'Start with login_with_project; then add_task, start, and next / report until finish_task.',
    tools: SUPERVISOR_TOOLS.map((name) => ({
      name,
      description: TOOL_DESCRIPTIONS[name],
      inputSchema: jsonSchemaOf(TOOL_ARGS[name]),
      outputSchema: { type: 'object', ...jsonSchemaOf(TOOL_OUTPUTS[name]) },
      annotations: ANNOTATIONS[name],
      handler: (args, context) => engine.call(name, args, context.session),
    })),
    // The seed's VALIDATION_ERROR in the tool's failure shape, worded as the engine words its own checks.
    refuseArguments: (tool, refusal) => {
      const name = tool as SupervisorTool;
      const parsed = TOOL_ARGS[name].safeParse(refusal.args);
      return failureOf(name, new SupervisorError('VALIDATION_ERROR', parsed.success ? refusal.message : describeIssue(parsed.error)));
    },
  };
}
