/**
 * `POST /v1/aceflow/runs`: a stage-generation pipeline for one AceFlow project, from its analysis
 * through the stages its mode picks (or a slice of them).
 */
import { z } from 'zod';
import { RunAccepted } from './run-api.js';

export const ACEFLOW_STAGE_IDS = ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation', 's5_test_report', 's6_codereview', 's7_demo_script', 's8_summary_report'] as const;
export const AceflowStageId = z.enum(ACEFLOW_STAGE_IDS);
export type AceflowStageId = z.infer<typeof AceflowStageId>;

export const AceflowRunRequest = z.strictObject({
  project: z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, dot, dash and underscore; 1 to 100 characters'),
    mode: z.enum(['complete', 'standard', 'minimal']).default('complete'),
    // Checked here, at the request, as the engine checks it: a relative path of plain segments, so
    // nothing outside the workspace root can be named (no `..`, no leading `/`).
    workspace: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,7}$/, 'a relative directory under the AceFlow workspace root: up to 8 segments separated by "/", each of letters, digits, ".", "_" or "-" and starting with a letter or digit')
      .optional(),
  }),
  /** Project analysis (seed 000 set_analysis data), merged into what the project has. */
  analysis: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  from_stage: AceflowStageId.optional(),
  to_stage: AceflowStageId.optional(),
});
export type AceflowRunRequest = z.infer<typeof AceflowRunRequest>;

/** `202` of `POST /v1/aceflow/runs`: the stages the run will write, in order. */
export const AceflowRunAccepted = RunAccepted.extend({ stages: z.array(AceflowStageId) });
export type AceflowRunAccepted = z.infer<typeof AceflowRunAccepted>;
