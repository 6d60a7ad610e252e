/**
 * The job tools: an agent starts stories, batches and AceFlow stage pipelines, follows a run,
 * reads it, lists runs and cancels one, through the same pipeline operations as the orchestrator's
 * HTTP API (the bridge talks to Redis and the queues directly, never to the orchestrator). A call
 * that fails — an unknown run, cancelling one that has ended — is an `isError` result holding
 * `{error:{code, message, details}}`, the error body of every HTTP service.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RunView } from '@switchyard/contracts';
import { describeZodError } from '@switchyard/http-kit';
import { analysisDataSchema } from '@switchyard/aceflow';
import { AceflowRangeError, batchStoryRequests, cancelRun, findRun, releaseWaits, type RunWaits, startAceflowRun, startStoryBatch, startStoryRun, toRunView, type RunRecord, type PipelineRunsDeps } from '@switchyard/pipeline';
import { failure, InvalidArgumentsError, jsonSchemaOf, success, type SuiteTool, type ToolContext, type ToolOutcome, type ToolSuite } from '@switchyard/tool-suite';
import { parseArgs } from '../parse-args.js';
import { callerFlow, viewerOf } from '../../flow-caller.js';
import {
  CancelRunInput,
  GetRunInput,
  ListRunsInput,
  outputSchemaOf,
  RunList,
  StartedBatch,
  StartedPipeline,
  StartedRun,
  StartStagePipelineInput,
  StartStoryBatchInput,
  StartStoryInput,
  WaitedRun,
  WaitForRunInput,
} from './schemas.js';
import { waitAsker } from './elicit.js';
import { waitForRun } from './wait.js';

export interface JobSuiteDeps extends PipelineRunsDeps {
  /** Duplicated for each wait_for_run, which blocks on the run's event stream. */
  redis: Redis;
  /** What runs wait for: a cancelled run's waits leave the inbox, and wait_for_run elicits answers. */
  waits: RunWaits;
}

const notFound = (runId: string) => failure({ error: { code: 'run_not_found', message: `No run ${runId}`, details: { run_id: runId } } });

function tool(definition: { name: string; title: string; description: string; input: z.ZodType; output: z.ZodType; annotations: SuiteTool['annotations']; longRunning?: boolean; handler: SuiteTool['handler'] }): SuiteTool {
  return {
    name: definition.name,
    longRunning: definition.longRunning ?? false,
    description: definition.description,
    inputSchema: jsonSchemaOf(definition.input),
    outputSchema: outputSchemaOf(definition.output),
    annotations: { title: definition.title, openWorldHint: false, ...definition.annotations },
    handler: definition.handler,
  };
}

export function jobsSuite(deps: JobSuiteDeps): ToolSuite {
  const view = (run: RunRecord, context: Pick<ToolContext, 'keyId' | 'scopes'>): ToolOutcome => success(RunView.parse(toRunView(run, viewerOf(context))));

  return {
    name: 'jobs',
    description: 'Story pipelines: start a story or a batch, follow a run to its end, read the story, list runs, cancel a run.',
    tools: [
      tool({
        name: 'start_story',
        title: 'Start a story',
        description: 'Starts a story pipeline (search → outline → four sections written in parallel → polish) and answers its run_id at once. Follow it with wait_for_run; read the story with get_run.',
        input: StartStoryInput,
        output: StartedRun,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
        longRunning: true,
        handler: async (args, context) => {
          const { priority, ...request } = parseArgs(StartStoryInput, args);
          const { runId, status } = await startStoryRun(deps, { request, owner: context.keyId, caller: callerFlow(context, priority) });
          return success(StartedRun.parse({ run_id: runId, status }));
        },
      }),
      tool({
        name: 'start_story_batch',
        title: 'Start a batch of stories',
        description: 'Starts one story run per item; each item is merged over `defaults` and must then have a topic. Answers the batch_id and every run_id in item order.',
        input: StartStoryBatchInput,
        output: StartedBatch,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
        handler: async (args, context) => {
          const body = parseArgs(StartStoryBatchInput, args);
          let requests;
          try {
            requests = batchStoryRequests(body);
          } catch (error) {
            if (!(error instanceof z.ZodError)) throw error;
            const { message, details } = describeZodError(error);
            throw new InvalidArgumentsError(message, details);
          }
          const { batchId, runIds } = await startStoryBatch(deps, { requests, owner: context.keyId, caller: callerFlow(context, body.priority) });
          return success(StartedBatch.parse({ batch_id: batchId, status: 'queued', total: runIds.length, run_ids: runIds }));
        },
      }),
      tool({
        name: 'start_stage_pipeline',
        title: 'Start an AceFlow stage pipeline',
        description:
          'Starts an AceFlow stage-generation pipeline for a project: from_stage to to_stage of its mode (default all), each stage document written, validated and saved to the project workspace; a high-severity defect in the test report sends it back to the implementation. Answers run_id and the stages; follow it with wait_for_run, read it with get_run.',
        input: StartStagePipelineInput,
        output: StartedPipeline,
        // Each stage's saved output replaces the one the project had.
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
        handler: async (args, context) => {
          const request = parseArgs(StartStagePipelineInput, args);
          if (request.analysis) {
            const analysis = analysisDataSchema.safeParse(request.analysis);
            if (!analysis.success) {
              const { message, details } = describeZodError(analysis.error);
              throw new InvalidArgumentsError(`analysis: ${message}`, details);
            }
          }
          let started;
          try {
            started = await startAceflowRun(deps, { request, owner: context.keyId, caller: callerFlow(context) });
          } catch (error) {
            if (error instanceof AceflowRangeError) throw new InvalidArgumentsError(error.message);
            throw error;
          }
          return success(StartedPipeline.parse({ run_id: started.runId, status: started.status, stages: started.stages }));
        },
      }),
      tool({
        name: 'get_run',
        title: 'Read a run',
        description: 'A run: its status, progress, stages and, once completed, the story (title, content, sections, improvements, research, outline).',
        input: GetRunInput,
        output: RunView,
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: async (args, context) => {
          const { run_id } = parseArgs(GetRunInput, args);
          const run = await findRun(deps, run_id);
          return run ? view(run, context) : notFound(run_id);
        },
      }),
      tool({
        name: 'list_runs',
        title: 'List runs',
        description: 'Runs, newest first, optionally of one status: each a summary (status, progress, the input\'s topic, and the story title once completed), without its input or story (get_run reads them). A page stops early when its runs would pass the listing budget: next_offset says where to go on.',
        input: ListRunsInput,
        output: RunList,
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: async (args) => {
          const page = parseArgs(ListRunsInput, args);
          const listed = await deps.store.listRuns(page);
          return success(RunList.parse({ ...listed, offset: page.offset, limit: page.limit }));
        },
      }),
      tool({
        name: 'cancel_run',
        title: 'Cancel a run',
        description: 'Cancels a queued or running run: its stages stop within moments. Cancelling a cancelled run answers it again; a run that completed or failed cannot be cancelled.',
        input: CancelRunInput,
        output: RunView,
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
        handler: async (args, context) => {
          const { run_id } = parseArgs(CancelRunInput, args);
          // As the API's DELETE: what it and its children waited for leaves the inbox, their waiting jobs wake to find them ended.
          const outcome = await cancelRun({ store: deps.store, releaseWaits: (id) => releaseWaits({ waits: deps.waits, steps: deps.queues.steps }, id) }, run_id);
          switch (outcome.outcome) {
            case 'not_found':
              return notFound(run_id);
            case 'finished':
              return failure({ error: { code: 'run_finished', message: `Run ${run_id} has already ${outcome.status}`, details: { run_id, status: outcome.status } } });
            default:
              return view(outcome.run, context);
          }
        },
      }),
      tool({
        name: 'wait_for_run',
        title: 'Wait for a run',
        description:
          'Waits until the run ends or timeout_s passes, and answers the run (timed_out says which). Pass a progressToken to receive notifications/progress: progress is the percentage (total 100), message the stage that changed. When the run waits for an approval or a signal and the client declared the elicitation capability, the person is asked through elicitation/create (a flat form from the schema) and the answer applied; otherwise answer with list_inbox, approve_call and send_signal.',
        input: WaitForRunInput,
        output: WaitedRun,
        annotations: { readOnlyHint: true, idempotentHint: true },
        longRunning: true,
        handler: async (args, context) => {
          const { run_id, timeout_s } = parseArgs(WaitForRunInput, args);
          const timeoutMs = timeout_s * 1000;
          // A client that can show forms is asked for what the run waits for (elicit.ts).
          const asker = context.elicit ? waitAsker({ store: deps.store, waits: deps.waits, pipelines: deps.pipelines, steps: deps.queues.steps }, { runId: run_id, by: { scopes: context.scopes }, elicit: context.elicit.bind(context), signal: context.signal, deadline: Date.now() + timeoutMs }) : undefined;
          const waited = await waitForRun(deps, {
            runId: run_id,
            timeoutMs,
            signal: context.signal,
            onProgress: ({ progress, message }) => context.reportProgress({ progress, total: 100, message }),
            ...(asker ? { onWaiting: asker } : {}),
          });
          if (!waited) return notFound(run_id);
          return success(WaitedRun.parse({ ...toRunView(waited.run, viewerOf(context)), timed_out: waited.timedOut }));
        },
      }),
    ],
  };
}
