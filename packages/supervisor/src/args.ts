/**
 * The Supervisor's tools: each one's arguments as a zod schema (its JSON Schema is what clients
 * see) and a description saying what it takes and answers. Unknown arguments are refused, so a
 * misspelt one is a VALIDATION_ERROR rather than silently ignored.
 */
import { z } from 'zod';
import { STEP_IDENTIFIER_PATTERN } from './domain.js';

const id = (what: string) => z.string().regex(/^[A-Za-z0-9-]{1,64}$/, `must be a ${what} id as the Supervisor returned it`);
const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const username = z.string().min(1).max(64).describe('Your Supervisor username.');
const apiToken = z.string().min(1).max(200).describe('Your API token (from the Supervisor administrator).');
const workspacePath = z
  .string()
  .min(1)
  .max(1000)
  .refine((p) => !p.includes('\0'), 'must not contain NUL')
  .describe('Your working directory: relative to the Supervisor workspace root, or an absolute path inside it.');
const stepIdentifier = z.string().regex(STEP_IDENTIFIER_PATTERN, 'must be an SOP step identifier, e.g. requirementAnalysis').describe('Identifier of an SOP step of the project.');
const taskId = id('task group').describe('Task group id (task_id from add_task, next or start).');

export const NewTaskArgs = z.strictObject({
  title: text(200).describe('Short title of the task group.'),
  goal: text(4000).describe('What the task group must achieve.'),
  sop_step_identifier: stepIdentifier,
});

export const TOOL_ARGS = {
  ping: z.strictObject({}),
  login: z.strictObject({ username, api_token: apiToken }),
  login_with_project: z.strictObject({ username, api_token: apiToken, project_id: id('project').describe('The project to work on.'), workspace_path: workspacePath }),
  logout: z.strictObject({}),
  health: z.strictObject({}),
  create_project: z.strictObject({
    project_name: text(200).describe('Name of the new project.'),
    description: z.string().max(4000).optional().describe('What the project is about.'),
    workspace_path: workspacePath.optional().describe("Working directory for the project; default: the session's current one (required when it has none)."),
    initial_tasks: z.array(NewTaskArgs).max(50).optional().describe('Task groups to create right away, PENDING.'),
  }),
  setup_workspace: z.strictObject({ project_id: id('project').describe('The project to work on.'), workspace_path: workspacePath }),
  next: z.strictObject({}),
  report: z.strictObject({
    task_phase_id: id('task phase').describe('The id of the phase being reported (task_phase.id from next).'),
    result_data: z.strictObject({ passed: z.boolean() }).optional().describe('Only for a VALIDATION phase, and required there: whether validation passed.'),
  }),
  pre_analyze: z.strictObject({
    user_requirement: text(10_000).describe('The requirement, in Chinese or English.'),
    limit: z.number().int().min(1).max(20).optional().describe('Most steps to recommend; default 5.'),
  }),
  add_task: NewTaskArgs,
  cancel_task: z.strictObject({ task_id: taskId, cancellation_reason: z.string().max(1000).optional().describe('Why it is cancelled.') }),
  finish_task: z.strictObject({ task_id: taskId }),
  start: z.strictObject({ task_id: taskId }),
  suspend: z.strictObject({}),
  continue_suspended: z.strictObject({ task_id: taskId }),
  update_step_rules: z.strictObject({ step_identifier: stepIdentifier, rules: z.array(text(2000)).max(50).describe('The rules of the step, replacing the current ones.') }),
  update_output_template: z.strictObject({ step_identifier: stepIdentifier, template: z.string().min(1).max(100_000).describe('The output template (Markdown), replacing the current one.') }),
} as const;

export type SupervisorTool = keyof typeof TOOL_ARGS;
export type ToolArgs<T extends SupervisorTool> = z.output<(typeof TOOL_ARGS)[T]>;
export const SUPERVISOR_TOOLS = Object.keys(TOOL_ARGS) as SupervisorTool[];

export const TOOL_DESCRIPTIONS: Record<SupervisorTool, string> = {
  ping: 'Check that the Supervisor is running. Answers status "ok", a message, a timestamp (seconds) and the server name.',
  login: 'Deprecated: use login_with_project. Log this session in with username and api_token, without choosing a project. Answers success, user_id, username; a wrong name or token is AUTH_001.',
  login_with_project:
    'Log this session in and bind it to one of your projects: username, api_token, project_id and workspace_path (your working directory under the workspace root). Writes the project\'s output templates to supervisor_workspace/templates/ and answers success, user_id, username and project {project_id, project_name, templates_downloaded}. Another user\'s project is PERMISSION_DENIED.',
  logout: 'Log this session out. Answers success and a message; every tool but ping, health, login and login_with_project then answers AUTH_001.',
  health: 'Check the Supervisor: answers status "healthy" or "degraded" with checks {api_connection, authentication, project_context, api_url}.',
  create_project:
    'Create a project with the default SOP (需求分析, 设计语言系统, 系统分析, 技术实现, 测试验证, 部署发布) and make it this session\'s project: project_name, optional description, workspace_path and initial_tasks [{title, goal, sop_step_identifier}]. Answers project_id, project_name, sop_steps_count, initial_tasks.',
  setup_workspace: 'Deprecated: use login_with_project. Bind this logged-in session to project_id with workspace_path, writing the output templates. Answers success, project and templates_downloaded.',
  next: 'Get the phase to work on in the project\'s task group in progress: the current one if not yet reported, else the next (UNDERSTANDING → PLANNING → IMPLEMENTING → VALIDATION → RETROSPECTIVE, or FIXING → VALIDATION after a failed validation). Its instructions are written to supervisor_workspace/current_task/{order}_{type}_instructions.md. Answers task_phase, "no_available_tasks", or TASK_VALIDATION_ERROR when only finish_task is left.',
  report:
    'Report the current phase as done: task_phase_id, and result_data {passed: boolean} for a VALIDATION phase only (no result_data for other phases). Answers data {id, title, status "COMPLETED", result}.',
  pre_analyze: 'Recommend SOP steps for user_requirement, best first, each with a relevance_score in 0–1 (TF-IDF cosine over the step\'s name, description and rules) and the reason; also a suggested task title and goal.',
  add_task: 'Create a PENDING task group: title, goal and sop_step_identifier. Answers data {task_id, title, goal, sop_step_identifier, status, created_at}.',
  cancel_task:
    'Cancel a task group: task_id and an optional cancellation_reason. Cancelling the one in progress starts the oldest PENDING one (auto_switched_to). Cancelling again answers status "info".',
  finish_task: 'Mark the task group in progress as COMPLETED once its validation has passed: task_id. Finishing again answers status "info"; otherwise INVALID_STATUS.',
  start: 'Start a PENDING task group: task_id. A project has at most one task group in progress; another one answers CONFLICT_IN_PROGRESS.',
  suspend: 'Suspend the project\'s task group in progress, setting its instruction files aside. Answers status "info" when none is in progress.',
  continue_suspended: 'Resume a SUSPENDED task group: task_id; its instruction files come back to current_task. CONFLICT_IN_PROGRESS when another is in progress.',
  update_step_rules: 'Replace the rules of an SOP step of this session\'s project: step_identifier and rules (a list of strings). UPDATE_FAILED when the step does not exist.',
  update_output_template: 'Replace the output template of an SOP step of this session\'s project: step_identifier and template. UPDATE_FAILED when the step does not exist.',
};

/** The first problem with the arguments, naming the field: `initial_tasks[0].title: must not be empty`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid arguments';
  const field = issue.path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)), '');
  const message = issue.code === 'unrecognized_keys' ? `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : issue.message;
  return field ? `${field}: ${message}` : message;
}
