/**
 * `supervisor_phases(project)`: works a Supervisor task group of a project phase by phase (seed
 * 002) with the `supervisor` suite's tools — login_with_project, add_task or start, then next /
 * report until the task group can be finished. The project is named by name or id; a name is
 * looked up, so the instructions carry the id that login_with_project needs.
 */
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CompletionSources } from '../completions/sources.js';
import { completableString, type PromptDefinition } from './kit.js';

export interface SupervisorPromptDeps {
  sources: CompletionSources;
  /** Every Supervisor project, id and name. */
  projects(): Promise<{ id: string; name: string }[]>;
}

export function supervisorPhasesPrompt(deps: SupervisorPromptDeps) {
  const args = {
    project: completableString(z.string().trim().min(1).max(200).describe('The Supervisor project: its name or its project_id'), (value) => deps.sources.supervisorProjects(value)),
  };
  const definition: PromptDefinition<typeof args> = {
    name: 'supervisor_phases',
    title: 'Work a Supervisor task group phase by phase',
    description: 'Log in to a Supervisor project and work its task group in progress (or a new one) phase by phase: UNDERSTANDING → PLANNING → IMPLEMENTING → VALIDATION → RETROSPECTIVE, with FIXING after a failed validation.',
    args,
    render: async (input) => render(input.project, await deps.projects()),
  };
  return definition;
}

function render(wanted: string, projects: { id: string; name: string }[]): GetPromptResult {
  const found = projects.filter((p) => p.id === wanted || p.name === wanted);
  const [only] = found;
  const which =
    found.length === 1 && only
      ? `the Supervisor project "${only.name}" (project_id ${only.id})`
      : found.length > 1
        ? `the Supervisor project named "${wanted}" — ${found.length} projects have that name (project_ids ${found.map((p) => p.id).join(', ')}): use the one that is yours`
        : `the Supervisor project "${wanted}" — no project has that name or id yet: create it with create_project after logging in, or ask for its project_id`;
  const id = found.length === 1 && only ? only.id : '<project_id>';
  const text = [
    `Work on ${which}, one phase at a time, with the Supervisor tools.`,
    '',
    `1. login_with_project with your username, api_token, project_id "${id}" and workspace_path (your working directory under the Supervisor workspace root). If a tool answers AUTH_001, log in again.`,
    '2. If the project has no task group in progress: add_task {title, goal, sop_step_identifier} (pre_analyze with the requirement recommends the SOP step), then start with its task_id.',
    '3. Repeat until next answers that only finish_task is left:',
    '   a. next: the phase to work on (UNDERSTANDING, PLANNING, IMPLEMENTING, VALIDATION, FIXING or RETROSPECTIVE); its instructions are written to supervisor_workspace/current_task/.',
    '   b. Do what the instructions say, in the workspace, following the SOP step\'s rules and output template.',
    '   c. report with task_phase_id — for a VALIDATION phase with result_data {passed: true|false}; a failed validation brings a FIXING phase next.',
    '4. finish_task with the task_id once validation has passed.',
    '',
    'Never report a phase you have not done; if you are stuck, suspend the task group and say why.',
    'End with what each phase produced and the task group\'s final status.',
  ].join('\n');
  return { description: `Supervisor phases for ${wanted}`, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
