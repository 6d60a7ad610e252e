/**
 * The actions that read or move the flow: status, next, goto, validate. Moving is a
 * compare-and-set on the current stage; when another process moved first, the move is worked out
 * again from the new position, so concurrent calls behave as if made one after another.
 */
import { actionsFor, dependencyMissing, openProject, progressOf, remainingTime, resolveStage, type EngineContext, now } from './context.js';
import { AceflowError } from './errors.js';
import type { StatusResponse, TransitionResponse, ValidateResponse } from './responses.js';
import { requiredInputs, stageAfter, stagesForMode, type StageId } from './stages.js';
import type { ProjectRecord } from './store.js';
import { measureOutput } from './validation.js';

const MAX_MOVE_ROUNDS = 100;

export async function status(context: EngineContext, project: unknown): Promise<StatusResponse> {
  const record = await openProject(context, project);
  const snapshot = await context.store.snapshot(record.name);
  const { mode, current_stage: current } = snapshot.project;
  const completed = stagesForMode(mode).filter((stage) => snapshot.saved.has(stage));
  return {
    success: true,
    project: { name: record.name, mode, created_at: snapshot.project.created_at, last_updated: snapshot.project.last_updated },
    flow: {
      current_stage: current,
      current_stage_status: snapshot.saved.has(current) ? 'completed' : snapshot.prepared.has(current) ? 'in_progress' : 'pending',
      completed_stages: completed,
      next_stage: stageAfter(current, mode),
      progress_percentage: progressOf(mode, snapshot.saved),
      estimated_remaining_time: remainingTime(mode, snapshot.saved),
    },
    data_status: {
      analysis_data_available: snapshot.analysisAvailable,
      previous_outputs_count: completed.length,
      missing_dependencies: requiredInputs(current, mode).filter((stage) => !snapshot.saved.has(stage)),
    },
  };
}

/** Plans a move from the current stage: the target and the outputs it needs, or an error. */
type MovePlan = (record: ProjectRecord) => { to: StageId; required: StageId[]; describeMissing: (missing: StageId[]) => AceflowError };

async function move(context: EngineContext, project: unknown, plan: MovePlan): Promise<TransitionResponse> {
  const opened = await openProject(context, project);
  for (let round = 1; round <= MAX_MOVE_ROUNDS; round += 1) {
    const { project: record } = await context.store.snapshot(opened.name);
    const { to, required, describeMissing } = plan(record);
    const outcome = await context.store.move(record.name, record.current_stage, to, required, now());
    if (outcome.kind === 'missing') throw describeMissing(outcome.stages);
    if (outcome.kind === 'ok') {
      const { saved } = await context.store.snapshot(record.name);
      const progress = progressOf(record.mode, saved);
      return {
        success: true,
        transition: { from_stage: record.current_stage, to_stage: to, progress_update: progress },
        message: `Moved "${record.name}" from ${record.current_stage} to ${to} (${progress}% of the ${record.mode} flow done)`,
        next_actions: actionsFor(to),
      };
    }
  }
  throw new Error(`moving "${opened.name}" lost ${MAX_MOVE_ROUNDS} compare-and-set rounds in a row`);
}

export function next(context: EngineContext, project: unknown): Promise<TransitionResponse> {
  return move(context, project, (record) => {
    const from = record.current_stage;
    const to = stageAfter(from, record.mode);
    if (!to) {
      throw new AceflowError('MISSING_STAGE', `${from} is the last stage of mode "${record.mode}"; there is no next stage`, { current_stage: from, mode: record.mode }, [
        `aceflow_stage(action="validate", stage="${from}")`,
        'aceflow_stage(action="status")',
      ]);
    }
    // Advancing means the stage in hand is done; the next one may start without all its inputs
    // (prepare_data names those missing), while goto, a jump, needs them.
    return { to, required: [from], describeMissing: (missing) => dependencyMissing(from, missing, record, `Moving on from ${from} needs`) };
  });
}

export function goto(context: EngineContext, project: unknown, stageArg: unknown): Promise<TransitionResponse> {
  return move(context, project, (record) => {
    const to = resolveStage(record, stageArg, 'goto');
    return { to, required: requiredInputs(to, record.mode), describeMissing: (missing) => dependencyMissing(to, missing, record, `Going to ${to} needs`) };
  });
}

export async function validate(context: EngineContext, project: unknown, stageArg: unknown): Promise<ValidateResponse> {
  const record = await openProject(context, project);
  const snapshot = await context.store.snapshot(record.name);
  const stage = stageArg === undefined || stageArg === null ? snapshot.project.current_stage : resolveStage(record, stageArg, 'validate');
  const template = await context.templates.get(stage);
  const output = (await context.store.outputs(record.name, [stage])).get(stage) ?? null;
  const required = requiredInputs(stage, record.mode);
  const result = measureOutput({
    stage,
    template,
    output,
    requiredInputs: required,
    missingInputs: required.filter((input) => !snapshot.saved.has(input)),
    analysisAvailable: snapshot.analysisAvailable,
  });
  return { success: true, validation_result: result };
}
