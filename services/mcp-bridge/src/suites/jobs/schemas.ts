/**
 * Inputs and outputs of the job tools. Inputs reuse the run API's request shapes, so an agent and
 * an HTTP client are held to the same rules; outputs are the run API's views.
 */
import { z } from 'zod';
import { AceflowRunRequest, BatchRequest, PageMarks, RunPriority, RunStatus, RunSummary, RunView, StoryRequest } from '@switchyard/contracts';
import { RUN_ID } from '@switchyard/pipeline';

export { outputSchemaOf, ToolErrorBody } from '../error-body.js';

/** The default wait of wait_for_run, in seconds. */
export const DEFAULT_WAIT_S = 25;
/** Longest wait_for_run may block, in seconds. */
export const MAX_WAIT_S = 600;

const RunId = z.string().regex(RUN_ID, 'must be a run id such as run_0123…(32 hex digits)').describe('The run id that start_story or start_story_batch answered');

export const StartStoryInput = StoryRequest.extend({ priority: RunPriority.optional() });
export const StartStoryBatchInput = BatchRequest;
export const StartStagePipelineInput = AceflowRunRequest;
export const GetRunInput = z.strictObject({ run_id: RunId });
export const CancelRunInput = z.strictObject({ run_id: RunId });
export const ListRunsInput = z.strictObject({
  offset: z.number().int().min(0).max(10_000).default(0).describe('Runs to skip, newest first'),
  limit: z.number().int().min(1).max(200).default(20).describe('Most runs to answer'),
  status: RunStatus.optional().describe('Only runs with this status'),
});
export const WaitForRunInput = z.strictObject({
  run_id: RunId,
  // 25 s by default: well under the 60 s many clients allow a request; longer waits belong in a task.
  timeout_s: z
    .number()
    .min(0)
    .max(MAX_WAIT_S)
    .default(DEFAULT_WAIT_S)
    .describe(`Seconds to wait for the run to end (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}); the current state is answered when they pass. For longer waits call this tool as a task.`),
});

export const StartedRun = z.object({ run_id: z.string(), status: RunStatus });
export const StartedPipeline = z.object({ run_id: z.string(), status: RunStatus, stages: z.array(z.string()).describe('The stages the pipeline writes, in order') });
export const StartedBatch = z.object({ batch_id: z.string(), status: z.literal('queued'), total: z.number().int(), run_ids: z.array(z.string()) });

/**
 * A page of runs: each a summary (status, progress, pipeline, the input's topic and, once
 * completed, the story's title), never its input, stages or story, which get_run answers. A page
 * holds at most `limit` runs and stops early before passing the listing budget.
 */
export const RunList = z.object({ runs: z.array(RunSummary), offset: z.number().int(), limit: z.number().int(), ...PageMarks.shape });
export const WaitedRun = RunView.extend({ timed_out: z.boolean().describe('True when the run had not ended when the wait ran out') });
