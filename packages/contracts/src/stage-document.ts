/**
 * The stage-writer tool `generate_stage_document`: writes one AceFlow stage document from its
 * template and the material the engine's `prepare_data` gathers. Same protocol as the story tools.
 */
import { z } from 'zod';

export const STAGE_DOCUMENT_TOOL = 'generate_stage_document';

export const StageDefect = z.object({
  description: z.string().min(1).max(1000),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
});
export type StageDefect = z.infer<typeof StageDefect>;

export const StageDocumentInput = z.object({
  stage: z.string().regex(/^s[1-8]_[a-z_]+$/),
  project_name: z.string().min(1).max(100),
  template: z.string().min(1).max(1_048_576),
  placeholders: z.array(z.string().max(100)).max(200).default([]),
  sections: z.array(z.string().max(200)).max(100).default([]),
  /** The stages this one depends on: their key points, and their text. */
  previous_outputs: z.record(z.string(), z.object({ key_points: z.array(z.string().max(2000)).max(50).default([]), content: z.string().max(5_242_880).optional() })).default({}),
  analysis: z.record(z.string(), z.unknown()).default({}),
  instructions: z.object({ task_description: z.string().max(5000).optional(), quality_requirements: z.array(z.string()).max(50).optional() }).default({}),
  /** What a previous draft lacked, and defects the next draft must address. */
  feedback: z
    .object({
      missing_elements: z.array(z.string().max(500)).max(100).default([]),
      quality_issues: z.array(z.string().max(500)).max(100).default([]),
      defects: z.array(StageDefect).max(100).default([]),
    })
    .optional(),
});
export type StageDocumentInput = z.infer<typeof StageDocumentInput>;

export const StageDocumentOutput = z.looseObject({
  content: z.string(),
  word_count: z.number().int().nonnegative(),
});
export type StageDocumentOutput = z.infer<typeof StageDocumentOutput>;
