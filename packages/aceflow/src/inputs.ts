/**
 * zod schemas of what callers send: the project reference, set_analysis's data (seed 000's
 * categories and data rules) and save_output's data. A failed parse becomes INVALID_DATA naming
 * the first offending field.
 */
import { z } from 'zod';
import { invalidData, type AceflowError } from './errors.js';
import { MODES } from './stages.js';

/**
 * A project name doubles as a Redis key part and a directory name, so it is one safe path
 * segment: letters, digits, `.`, `_`, `-`, starting with a letter or digit (no `..`, no `/`).
 * Up to 100 characters, the seed's limit for project names.
 */
export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const projectRefSchema = z.strictObject({
  name: z.string().regex(PROJECT_NAME_PATTERN, 'must be 1–100 characters of letters, digits, ".", "_" or "-", starting with a letter or digit'),
  mode: z.enum(MODES).optional(),
  /** A directory under the workspace root, relative; checked by the workspace, not here. */
  workspace: z.string().min(1).max(255).optional(),
});
export type ProjectRef = z.infer<typeof projectRefSchema>;

const count = z.number().int().min(0);
const percent = z.number().min(0).max(100);
const strings = z.array(z.string());

const projectInfo = z.looseObject({
  name: z.string().min(1).max(100).optional(),
  tech_stack: strings.optional(),
  file_count: count.optional(),
  directory_structure: z.record(z.string(), z.unknown()).optional(),
  dependencies: strings.optional(),
});

const codeMetrics = z.looseObject({
  total_lines: count.optional(),
  code_lines: count.optional(),
  comment_lines: count.optional(),
  blank_lines: count.optional(),
  complexity_score: z.number().min(0).max(20).optional(),
  maintainability_index: z.number().optional(),
  // The seed's code-metrics rules list coverage too, though its example sends it in test_metrics.
  test_coverage_percent: percent.optional(),
});

const testMetrics = z.looseObject({
  test_files_count: count.optional(),
  total_tests: count.optional(),
  test_coverage_percent: percent.optional(),
  test_types: strings.optional(),
});

const buildInfo = z.looseObject({
  build_tool: z.string().optional(),
  scripts: z.record(z.string(), z.string()).optional(),
  environment: z.string().optional(),
});

/** The seed's four categories are checked field by field; any other category must be an object. */
export const analysisDataSchema = z
  .object({
    project_info: projectInfo.optional(),
    code_metrics: codeMetrics.optional(),
    test_metrics: testMetrics.optional(),
    build_info: buildInfo.optional(),
  })
  .catchall(z.record(z.string(), z.unknown()))
  .refine((data) => Object.keys(data).length > 0, { message: 'must hold at least one category (project_info, code_metrics, test_metrics, build_info)' });
export type AnalysisData = Record<string, Record<string, unknown>>;

export const saveOutputDataSchema = z.strictObject({
  content: z.string().refine((content) => content.trim() !== '', 'must not be empty'),
  metadata: z
    .looseObject({
      word_count: count.optional(),
      sections_count: count.optional(),
      completion_time: z.string().max(100).optional(),
      ai_confidence: z.number().min(0).max(1).optional(),
    })
    .optional(),
  artifacts: z
    .strictObject({
      // Recorded as the agent reports them; the engine never opens these paths.
      primary_output: z.string().max(1000).optional(),
      supporting_files: z.array(z.string().max(1000)).max(1000).optional(),
    })
    .optional(),
});
export type SaveOutputData = z.infer<typeof saveOutputDataSchema>;

/** Parses `value`, or throws INVALID_DATA naming the first bad field under `root`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw fieldError(parsed.error, root);
}

function fieldError(error: z.ZodError, root: string): AceflowError {
  const issues = error.issues.map((issue) => ({ field: [root, ...issue.path.map(String)].filter(Boolean).join('.'), message: issue.message }));
  const first = issues[0] ?? { field: root, message: 'is invalid' };
  return invalidData(first.field, first.message, { issues });
}
