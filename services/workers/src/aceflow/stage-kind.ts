/**
 * The `aceflow.stage` step kind: set the run's analysis (the run's first stage), write the stage
 * through the validation loop, and for the test report, send the pipeline back to the
 * implementation while high-severity defects are open, a bounded number of times.
 */
import { z } from 'zod';
import { AceflowError, type AceflowEngine } from '@switchyard/aceflow';
import { AceflowRunRequest, AceflowStageId, type StageDefect } from '@switchyard/contracts';
import { ContentCoalescer } from '../engine/content-coalescer.js';
import { StageFailedError } from '../stage-runner.js';
import type { StepKind, StepKindContext } from '../engine/step-kinds.js';
import { blockingDefects } from './defects.js';
import { generateStage, type GeneratedStage } from './generate-stage.js';
import type { StageWriter } from './stage-writer.js';

export interface AceflowKindDeps {
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

const StageArgs = z.object({
  project: AceflowRunRequest.shape.project,
  stage: AceflowStageId,
  analysis: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

/** Engine refusals (missing dependency, bad data) cannot pass by retrying. */
function asStageFailure(error: unknown): unknown {
  return error instanceof AceflowError ? new StageFailedError({ code: error.code, message: error.message, details: error.details }) : error;
}

async function writeStage(deps: AceflowKindDeps, context: StepKindContext, args: z.infer<typeof StageArgs>): Promise<AceflowStageOutput> {
  const { runId, store, signal, announce } = context;
  if (args.analysis) await deps.engine.setAnalysis(args.project, args.analysis);
  const write = async (stage: string, defects?: StageDefect[]): Promise<GeneratedStage> => {
    const content = new ContentCoalescer({
      emit: (chunk) => {
        announce();
        void store.appendEvent(runId, 'content', { stage, section: stage, chunk });
      },
    });
    try {
      return await generateStage({
        engine: deps.engine,
        writer: deps.writer,
        project: args.project,
        stage,
        signal,
        maxRegenerations: deps.maxRegenerations,
        defects,
        onChunk: (chunk) => content.push(chunk),
        onReset: () => {
          content.drop();
          announce();
          void store.appendEvent(runId, 'reset', { stage, section: stage });
        },
        onRegenerate: async (validation, draft) => {
          // The draft's last text comes before the word that it is redone.
          content.flush();
          announce();
          await store.appendEvent(runId, 'error', { code: 'validation_incomplete', message: `draft ${draft - 1} of ${stage} misses: ${validation.missing_elements.join('; ') || 'quality'}`, stage, retryable: true, details: validation, will_retry: true });
        },
      });
    } finally {
      content.flush();
    }
  };
  let result = await write(args.stage);
  let loops = 0;
  for (let defects = args.stage === 's5_test_report' ? blockingDefects(result.content) : []; defects.length > 0; defects = blockingDefects(result.content)) {
    if (loops >= deps.maxDefectLoops) {
      throw new StageFailedError({ code: 'DEFECT_LOOP_EXHAUSTED', message: `the test report still lists ${defects.length} high-severity defect(s) after ${loops} return(s) to s4_implementation`, details: { defects } });
    }
    loops += 1;
    await store.setStageStatus({ runId, stage: 's4_implementation', status: 'running', startAttempt: true });
    await write('s4_implementation', defects);
    await store.setStageStatus({ runId, stage: 's4_implementation', status: 'completed', error: null });
    result = await write(args.stage);
  }
  if (!result.validation.is_valid) {
    throw new StageFailedError({ code: 'VALIDATION_FAILED', message: `${args.stage} is incomplete after ${result.drafts} drafts: ${result.validation.missing_elements.join('; ')}`, details: result.validation });
  }
  return { stage: args.stage, saved_to: result.saved_to, completeness_score: result.validation.completeness_score, drafts: result.drafts, defect_loops: loops };
}

export function aceflowStageKind(deps: AceflowKindDeps): StepKind {
  return {
    async run(context) {
      const args = StageArgs.safeParse(context.args);
      if (!args.success) throw new StageFailedError({ code: 'invalid_arguments', message: `aceflow.stage: ${args.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
      try {
        return await writeStage(deps, context, args.data);
      } catch (error) {
        throw asStageFailure(error);
      }
    },
  };
}
