/**
 * Starting runs of a registered pipeline: the run is recorded (input, pinned version, its steps
 * as stages, the queue of each step) and the steps that need nothing are enqueued. A batch hands
 * the enqueueing to the dispatcher, so that 10,000 runs are accepted in one write.
 */
import type { CompiledPipeline } from '../definition/compile.js';
import { DefinitionError } from '../definition/problems.js';
import type { BatchStore } from '../batch-store.js';
import type { PipelineQueues } from '../queues.js';
import { newRunId, type NewRun, type RunStore } from '../run-store.js';
import type { PipelineStore } from './pipeline-store.js';
import { stepJob, type StepJobSpec } from './step-jobs.js';

export interface PipelineRunsDeps {
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
  pipelines: PipelineStore;
}

/** A run's input that breaks the pipeline's `input` schema; each problem names the field. */
export class InputError extends DefinitionError {
  override name = 'InputError';
}

/** Throws an InputError unless `input` fits the pipeline's input schema. */
export function checkRunInput(pipeline: CompiledPipeline, input: unknown, pathPrefix = ''): void {
  const problems = pipeline.checkInput(input);
  if (problems.length > 0) throw new InputError(problems.map((p) => ({ ...p, path: pathPrefix ? `${pathPrefix}.${p.path}` : p.path })));
}

/** The run record of a new run of `pipeline`. */
export function newPipelineRun(pipeline: CompiledPipeline, input: unknown, id?: string): NewRun & { id: string } {
  return {
    id: id ?? newRunId(),
    kind: pipeline.name,
    request: input,
    // Declaration order, as the author wrote them; a map step's place is taken by its branches.
    stages: Object.keys(pipeline.stored.definition.steps),
    pipeline: { name: pipeline.name, version: pipeline.version },
    stepQueues: Object.fromEntries([...pipeline.steps.values()].map((step) => [step.name, step.queue])),
  };
}

/** The jobs of the steps a run starts with. */
export function rootJobs(pipeline: CompiledPipeline, runId: string, batchId?: string): StepJobSpec[] {
  return pipeline.roots.map((name) => stepJob({ pipeline, step: pipeline.steps.get(name) as NonNullable<ReturnType<typeof pipeline.steps.get>>, runId, batchId }));
}

/** Records a queued run (input checked) and enqueues its first steps. */
export async function startPipelineRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues'>, options: { pipeline: CompiledPipeline; input: unknown; runId?: string }): Promise<string> {
  checkRunInput(options.pipeline, options.input);
  const run = newPipelineRun(options.pipeline, options.input, options.runId);
  await deps.store.createRun(run);
  await deps.queues.steps.add(rootJobs(options.pipeline, run.id));
  return run.id;
}

/** Records a batch of runs of one pipeline (inputs checked first) and asks a worker to enqueue them. */
export async function startPipelineBatch(deps: Pick<PipelineRunsDeps, 'batches' | 'queues'>, options: { pipeline: CompiledPipeline; inputs: readonly unknown[]; batchId?: string }): Promise<{ batchId: string; runIds: string[] }> {
  const problems = options.inputs.flatMap((input, i) => options.pipeline.checkInput(input).map((p) => ({ ...p, path: `items.${i}.${p.path}` })));
  if (problems.length > 0) throw new InputError(problems.slice(0, 50));
  const runs = options.inputs.map((input) => newPipelineRun(options.pipeline, input));
  const created = await deps.batches.createBatch({ id: options.batchId, runs });
  await deps.queues.dispatchBatch(created.batchId, { name: options.pipeline.name, version: options.pipeline.version });
  return created;
}
