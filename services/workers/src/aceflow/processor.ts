/**
 * The AceFlow stage job: set the run's analysis (first stage), write the stage through the
 * validation loop, and for the test report, send the pipeline back to the implementation while
 * high-severity defects are open, a bounded number of times. The last stage ends the run.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { AceflowError, type AceflowEngine } from '@switchyard/aceflow';
import type { StageDefect } from '@switchyard/contracts';
import { AceflowStageJob } from '@switchyard/pipeline';
import { runStage, StageFailedError, type StageDeps } from '../stage-runner.js';
import { blockingDefects } from './defects.js';
import { generateStage, type GeneratedStage } from './generate-stage.js';
import type { StageWriter } from './stage-writer.js';

export interface AceflowDeps extends StageDeps {
  engine: AceflowEngine;
  writer: StageWriter;
  /** Drafts written again after a failed validation, per stage (default 2). */
  maxRegenerations: number;
  /** Times the test report may send the pipeline back to the implementation (default 2). */
  maxDefectLoops: number;
}

export interface AceflowStageOutput {
  stage: string;
  saved_to: string;
  completeness_score: number;
  drafts: number;
  defect_loops: number;
}

/** Engine refusals (missing dependency, bad data) cannot pass by retrying. */
function asStageFailure(error: unknown): unknown {
  return error instanceof AceflowError ? new StageFailedError({ code: error.code, message: error.message, details: error.details }) : error;
}

export function aceflowProcessor(deps: AceflowDeps) {
  return async (job: Job, token?: string): Promise<AceflowStageOutput> => {
    const parsed = AceflowStageJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid aceflow job: ${parsed.error.message}`);
    const data = parsed.data;
    const runId = data.run_id;
    const { output } = await runStage(deps, job, {
      runId,
      batchId: data.batch_id,
      token,
      name: data.stage,
      work: async ({ signal }) => {
        try {
          if (data.analysis) await deps.engine.setAnalysis(data.project, data.analysis);
          const write = (stage: string, defects?: StageDefect[]): Promise<GeneratedStage> =>
            generateStage({
              engine: deps.engine,
              writer: deps.writer,
              project: data.project,
              stage,
              signal,
              maxRegenerations: deps.maxRegenerations,
              defects,
              onChunk: (chunk) => void deps.store.appendEvent(runId, 'content', { stage, section: stage, chunk }),
              onReset: () => void deps.store.appendEvent(runId, 'reset', { stage, section: stage }),
              onRegenerate: async (validation, draft) => {
                await deps.store.appendEvent(runId, 'error', { code: 'validation_incomplete', message: `draft ${draft - 1} of ${stage} misses: ${validation.missing_elements.join('; ') || 'quality'}`, stage, retryable: true, details: validation, will_retry: true });
              },
            });
          let result = await write(data.stage);
          let loops = 0;
          for (let defects = data.stage === 's5_test_report' ? blockingDefects(result.content) : []; defects.length > 0; defects = blockingDefects(result.content)) {
            if (loops >= deps.maxDefectLoops) {
              throw new StageFailedError({ code: 'DEFECT_LOOP_EXHAUSTED', message: `the test report still lists ${defects.length} high-severity defect(s) after ${loops} return(s) to s4_implementation`, details: { defects } });
            }
            loops += 1;
            await deps.store.setStageStatus({ runId, stage: 's4_implementation', status: 'running', startAttempt: true });
            await write('s4_implementation', defects);
            await deps.store.setStageStatus({ runId, stage: 's4_implementation', status: 'completed', error: null });
            result = await write(data.stage);
          }
          if (!result.validation.is_valid) {
            throw new StageFailedError({ code: 'VALIDATION_FAILED', message: `${data.stage} is incomplete after ${result.drafts} drafts: ${result.validation.missing_elements.join('; ')}`, details: result.validation });
          }
          return { stage: data.stage, saved_to: result.saved_to, completeness_score: result.validation.completeness_score, drafts: result.drafts, defect_loops: loops };
        } catch (error) {
          throw asStageFailure(error);
        }
      },
    });
    if (data.final) {
      const outputs = await deps.store.getOutputs(runId);
      await deps.store.transition({ runId, from: ['running', 'queued'], to: 'completed', result: { project: data.project, stages: outputs }, batchId: data.batch_id ?? null });
    }
    return output;
  };
}
