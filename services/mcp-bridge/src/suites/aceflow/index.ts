/**
 * The AceFlow suite (seed 000): one tool, `aceflow_stage(action, stage?, data?)`, over the
 * AceFlow engine that the workers share. Which project a call works on comes from its `project`
 * argument or, when absent, from the session: naming a project makes it the session's current
 * one, and a session that never names one works on DEFAULT_PROJECT, so that the seed's calls work
 * as written. A refusal is an `isError` result holding the seed's error response.
 */
import { z } from 'zod';
import {
  ACTIONS,
  AceflowError,
  MODES,
  STAGE_IDS,
  createAceflowEngine,
  errorResponseSchema,
  RESPONSE_SCHEMAS,
  type AceflowEngineOptions,
  type ProjectRef,
} from '@switchyard/aceflow';
import { failure, jsonSchemaOf, success, type JsonSchema, type SuiteTool, type ToolSuite } from '@switchyard/tool-suite';

/** Where the session keeps its current project. */
export const SESSION_PROJECT_KEY = 'aceflow.project';

/**
 * The project of a session that names none: `default`, all eight stages, its documents under
 * `<AceFlow workspace root>/default/aceflow_result/`. Shared by every such session.
 */
export const DEFAULT_PROJECT: ProjectRef = { name: 'default', mode: 'complete' };

// `stage` stays a plain string here so that an unknown stage is answered with the seed's
// MISSING_STAGE rather than refused by the schema check before the engine sees it.
const inputSchema = z.object({
  action: z.enum(ACTIONS).describe('set_analysis | save_output | prepare_data | status | next | goto | validate'),
  stage: z.string().max(200).optional().describe(`Stage id, for save_output, prepare_data, goto and validate: ${STAGE_IDS.join(', ')}`),
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('set_analysis: {project_info, code_metrics, test_metrics, build_info} (merged into what is stored). save_output: {content, metadata?, artifacts?}'),
  project: z
    .object({
      name: z.string().max(200).describe('Project name: letters, digits, ".", "_", "-" (1–100)'),
      mode: z.enum(MODES).optional().describe('Stages to run, fixed when the project is created: complete (all eight, default), standard (s1 s2 s4 s5 s6 s8), minimal (s1 s2 s4 s5)'),
      workspace: z.string().max(255).optional().describe('Directory under the AceFlow workspace root for aceflow_result/ (default: the project name)'),
    })
    .optional()
    .describe('The project to work on; remembered for the rest of the session. Without one, the session works on the project "default" (mode complete).'),
});

const OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  // Each action's answer once (next and goto share one), or the seed's error.
  anyOf: [...new Set(Object.values(RESPONSE_SCHEMAS)), errorResponseSchema].map((schema) => jsonSchemaOf(schema)),
};

const DESCRIPTION = [
  'AceFlow: drive a project through its document stages (user stories → tasks → test cases → implementation → test report → code review → demo script → summary).',
  'Typical flow: set_analysis with the project analysis; prepare_data for a stage (template, previous outputs, analysis, instructions); write the document; save_output; validate; next.',
  'status shows where the flow is; goto jumps to a stage whose inputs are saved.',
  'Pass project {name, mode?, workspace?} to work on a project of your own (later calls in the session use it); without one, the session works on the project "default".',
  'Failures are {success:false, error_code, error_message, error_details, suggested_actions}.',
].join(' ');

type Args = z.infer<typeof inputSchema>;

/** @param deps the engine's options: Redis, key prefix, workspace root and templates (see AceflowEngineOptions for defaults) */
export function aceflowSuite(deps: AceflowEngineOptions): ToolSuite {
  const engine = createAceflowEngine(deps);

  const tool: SuiteTool = {
    name: 'aceflow_stage',
    description: DESCRIPTION,
    inputSchema: jsonSchemaOf(inputSchema),
    outputSchema: OUTPUT_SCHEMA,
    // save_output replaces a stage's earlier output, so the tool as a whole may overwrite work.
    annotations: { title: 'AceFlow stage', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: async (raw, context) => {
      const args = raw as Args;
      let project: ProjectRef | undefined = args.project;
      if (project) {
        // Opened before it is remembered, so that a bad reference never becomes the session's.
        try {
          const record = await engine.openProject(project);
          project = { name: record.name, mode: record.mode, workspace: record.workspace };
          await context.session.set(SESSION_PROJECT_KEY, project);
        } catch (error) {
          if (error instanceof AceflowError) return failure({ ...error.toResponse() });
          throw error;
        }
      } else {
        project = await context.session.get<ProjectRef>(SESSION_PROJECT_KEY);
      }
      if (!project) {
        // The seed's calls name no project: a session that names none works on the default one.
        const record = await engine.openProject(DEFAULT_PROJECT);
        project = { name: record.name, mode: record.mode, workspace: record.workspace };
        await context.session.set(SESSION_PROJECT_KEY, project);
      }
      const response = await engine.stage(args.action, args.stage, args.data, project);
      return response.success ? success({ ...response }) : failure({ ...response });
    },
  };

  return {
    name: 'aceflow',
    description: 'AceFlow document stages (seed 000): analysis, templates, stage outputs, validation and flow control per project.',
    tools: [tool],
    // The seed's error response: arguments that break the schema are INVALID_DATA like bad data.
    refuseArguments: (_tool, refusal) =>
      failure({ ...new AceflowError('INVALID_DATA', refusal.message, { issues: (refusal.details as { issues?: unknown } | undefined)?.issues ?? [] }, ['Call again with arguments that follow the input schema: action, stage?, data?, project?']).toResponse() }),
  };
}
