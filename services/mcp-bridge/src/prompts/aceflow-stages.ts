/**
 * `aceflow_stages(project?, stage?)`: walks the agent through AceFlow's document stages (seed
 * 000) for a project with the `aceflow_stage` tool — status, set_analysis, then per stage
 * prepare_data → write → save_output → validate → next — or, for documents written without the
 * agent, the `start_stage_pipeline` job tool.
 */
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isStageId, STAGE_GUIDES, STAGE_IDS, type StageId } from '@switchyard/aceflow';
import type { CompletionSources } from '../completions/sources.js';
import { completableString, type PromptDefinition } from './kit.js';

const ProjectName = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be an AceFlow project name: letters, digits, ".", "_", "-"');

export function aceflowStagesPrompt(sources: CompletionSources) {
  const args = {
    project: completableString(ProjectName.optional().describe('The AceFlow project (default: the session\'s current one)'), (value) => sources.aceflowProjects(value)),
    stage: completableString(
      z
        .string()
        .refine(isStageId, { message: `must be one of ${STAGE_IDS.join(', ')}` })
        .optional()
        .describe(`The stage to start from (default: the project's current stage): ${STAGE_IDS.join(', ')}`),
      (value) => sources.stageIds(value),
    ),
  };
  const definition: PromptDefinition<typeof args> = {
    name: 'aceflow_stages',
    title: 'Generate AceFlow stage documents',
    description: 'Generate the AceFlow stage documents (user stories → tasks → test cases → implementation → test report → code review → demo script → summary) of a project, stage by stage, with the aceflow_stage tool.',
    args,
    render: (input) => render(input.project, input.stage as StageId | undefined),
  };
  return definition;
}

function render(project: string | undefined, stage: StageId | undefined): GetPromptResult {
  const ref = project ? `project {"name": "${project}"}` : "the session's current project (pass project {name, mode?} on the first call if the session has none)";
  const stages = (stage ? STAGE_IDS.slice(STAGE_IDS.indexOf(stage)) : STAGE_IDS).map((id) => `   - ${id}: ${STAGE_GUIDES[id].title} — ${STAGE_GUIDES[id].task}`);
  const text = [
    `Generate the AceFlow stage documents for ${ref}${stage ? `, from stage ${stage} on` : ''}. Use the tool aceflow_stage (action, stage?, data?, project?).`,
    '',
    `1. aceflow_stage action "status"${project ? ` with project {"name": "${project}"}` : ''}: see the mode, the current stage and what is saved.`,
    '2. If no analysis data is stored, analyse the code base and call action "set_analysis" with data {project_info, code_metrics, test_metrics, build_info}.',
    `3. ${stage ? `Call action "goto" with stage "${stage}" unless it is the current stage. Then, ` : ''}for each stage of the project's mode, in order:`,
    '   a. action "prepare_data" with the stage: the template, the previous stages\' outputs, the analysis and the instructions.',
    '   b. Write the document in Markdown, following the template and the instructions\' quality requirements.',
    '   c. action "save_output" with the stage and data {content, metadata?}.',
    '   d. action "validate" with the stage; if completeness_score is below 1 or quality_issues are listed, fix the document and save it again.',
    '   e. action "next" to move on.',
    '   The stages (a mode may skip some):',
    ...stages,
    '4. A refusal answers {success: false, error_code, error_message, suggested_actions}: follow the suggested actions.',
    '',
    'To have the documents written without you, call the job tool start_stage_pipeline instead ({project: {name, mode?}, analysis?, from_stage?, to_stage?}) and follow its run with wait_for_run or the resource switchyard://runs/{run_id}.',
    '',
    'End with the status of the project: the stages saved and the score each one validated with.',
  ].join('\n');
  return { description: `AceFlow stage documents for ${project ?? 'the current project'}`, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
