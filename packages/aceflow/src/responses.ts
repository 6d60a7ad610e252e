/**
 * zod schemas of seed 000's responses, one per action, exactly: strict objects, so a missing or an
 * extra field fails. `goto` has no documented shape in the seed; it answers like `next`.
 */
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';
import { MODES, STAGE_IDS } from './stages.js';

const stageId = z.enum(STAGE_IDS);
const percentage = z.number().int().min(0).max(100);

export const setAnalysisResponseSchema = z.strictObject({
  success: z.literal(true),
  message: z.string(),
  data_stored: z.strictObject({
    analysis_id: z.string().min(1),
    timestamp: z.iso.datetime(),
    categories: z.array(z.string()),
  }),
});

export const saveOutputResponseSchema = z.strictObject({
  success: z.literal(true),
  stage_id: stageId,
  saved_to: z.string().min(1),
  next_stage_unlocked: z.boolean(),
  message: z.string(),
});

const previousOutput = z.strictObject({
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  key_points: z.array(z.string()),
});

export const prepareDataResponseSchema = z.strictObject({
  success: z.literal(true),
  stage_id: stageId,
  data_package: z.strictObject({
    template: z.strictObject({
      content: z.string(),
      format: z.literal('markdown'),
      source_file: z.string(),
      placeholders: z.array(z.string()),
      sections: z.array(z.string()),
    }),
    previous_outputs: z.partialRecord(stageId, previousOutput),
    // The seed's three categories always; any further category the agent stored as well.
    analysis_data: z.looseObject({
      project_info: z.record(z.string(), z.unknown()),
      code_metrics: z.record(z.string(), z.unknown()),
      test_metrics: z.record(z.string(), z.unknown()),
    }),
    project_context: z.strictObject({
      name: z.string(),
      mode: z.enum(MODES),
      current_stage: stageId,
      progress_percentage: percentage,
      created_at: z.iso.datetime(),
    }),
    stage_dependencies: z.strictObject({
      required_inputs: z.array(stageId),
      optional_inputs: z.array(stageId),
      expected_outputs: z.array(z.string()),
    }),
  }),
  instructions: z.strictObject({
    task_description: z.string(),
    output_format: z.literal('markdown'),
    output_location: z.string(),
    quality_requirements: z.array(z.string()),
    success_criteria: z.array(z.string()),
  }),
});

export const statusResponseSchema = z.strictObject({
  success: z.literal(true),
  project: z.strictObject({
    name: z.string(),
    mode: z.enum(MODES),
    created_at: z.iso.datetime(),
    last_updated: z.iso.datetime(),
  }),
  flow: z.strictObject({
    current_stage: stageId,
    current_stage_status: z.enum(['pending', 'in_progress', 'completed']),
    completed_stages: z.array(stageId),
    next_stage: stageId.nullable(),
    progress_percentage: percentage,
    estimated_remaining_time: z.string().nullable(),
  }),
  data_status: z.strictObject({
    analysis_data_available: z.boolean(),
    previous_outputs_count: z.number().int().min(0),
    missing_dependencies: z.array(stageId),
  }),
});

export const transitionResponseSchema = z.strictObject({
  success: z.literal(true),
  transition: z.strictObject({
    from_stage: stageId,
    to_stage: stageId,
    progress_update: percentage,
  }),
  message: z.string(),
  next_actions: z.array(z.string()),
});

export const validateResponseSchema = z.strictObject({
  success: z.literal(true),
  validation_result: z.strictObject({
    is_valid: z.boolean(),
    completeness_score: z.number().min(0).max(1),
    missing_elements: z.array(z.string()),
    quality_issues: z.array(z.string()),
    suggestions: z.array(z.string()),
  }),
});

export const errorResponseSchema = z.strictObject({
  success: z.literal(false),
  error_code: z.enum(ERROR_CODES),
  error_message: z.string().min(1),
  error_details: z.record(z.string(), z.unknown()),
  suggested_actions: z.array(z.string()),
});

export type SetAnalysisResponse = z.infer<typeof setAnalysisResponseSchema>;
export type SaveOutputResponse = z.infer<typeof saveOutputResponseSchema>;
export type PrepareDataResponse = z.infer<typeof prepareDataResponseSchema>;
export type StatusResponse = z.infer<typeof statusResponseSchema>;
export type TransitionResponse = z.infer<typeof transitionResponseSchema>;
export type ValidateResponse = z.infer<typeof validateResponseSchema>;
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

export const ACTIONS = ['set_analysis', 'save_output', 'prepare_data', 'status', 'next', 'goto', 'validate'] as const;
export type AceflowAction = (typeof ACTIONS)[number];

/** The success response of each action. */
export const RESPONSE_SCHEMAS = {
  set_analysis: setAnalysisResponseSchema,
  save_output: saveOutputResponseSchema,
  prepare_data: prepareDataResponseSchema,
  status: statusResponseSchema,
  next: transitionResponseSchema,
  goto: transitionResponseSchema,
  validate: validateResponseSchema,
} as const satisfies Record<AceflowAction, z.ZodType>;

export type AceflowSuccess = SetAnalysisResponse | SaveOutputResponse | PrepareDataResponse | StatusResponse | TransitionResponse | ValidateResponse;
export type AceflowResponse = AceflowSuccess | ErrorResponse;
