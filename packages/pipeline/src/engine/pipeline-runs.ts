/**
 * Starting runs of a registered pipeline: the run is recorded (input, pinned version, its steps
 * as stages, the queue of each step) and the steps that need nothing are enqueued. A batch hands
 * the enqueueing to the dispatcher, so that 10,000 runs are accepted in one write.
 */
import { annotateActiveSpan } from '@switchyard/telemetry';
import { MAX_MAP_ITEMS } from '../catalog.js';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { DefinitionError } from '../definition/problems.js';
import type { BatchStore } from '../batch-store.js';
import type { PipelineQueues } from '../queues.js';
import { newRunId, type NewRun, type RunStore } from '../run-store.js';
import type { PipelineStore } from './pipeline-store.js';
import { branchKeys, stageOf, stepJob, type StepJobSpec } from './step-jobs.js';

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

const constantLists = new WeakMap<CompiledStep, Promise<unknown>>();

/** A map step's list when it reads no step output (null otherwise, or when it cannot be had). */
function listAtStart(step: CompiledStep, input: unknown, runId: string): Promise<unknown> | null {
  const map = step.map;
  if (!map || map.names('steps') || step.when) return null;
  // A list of constants is evaluated once per definition version.
  const constant = !map.names('input') && !map.names('run_id');
  let list = constant ? constantLists.get(step) : undefined;
  if (!list) {
    list = map.evaluate({ input, steps: {}, run_id: runId }).catch(() => null);
    if (constant) constantLists.set(step, list);
  }
  return list;
}

const keysOfList = new WeakMap<unknown[], string[]>();
/** The branch keys of a constant list (the same list object for every run of a version): made once. */
function keysOf(list: unknown[]): string[] {
  let keys = keysOfList.get(list);
  if (!keys) keysOfList.set(list, (keys = branchKeys(list)));
  return keys;
}

const usableList = (items: unknown): items is unknown[] => Array.isArray(items) && items.length > 0 && items.length <= MAX_MAP_ITEMS;

/**
 * The branches of a map step whose list reads no step output, known when the run is created, so
 * that the run lists its stages from the start and its progress never goes back.
 */
async function branchesAtStart(step: CompiledStep, input: unknown, runId: string): Promise<string[] | null> {
  const items = await listAtStart(step, input, runId);
  return usableList(items) ? branchKeys(items).map((key) => stageOf(step.name, key)) : null;
}

/**
 * The jobs that start a step: one per branch for a map over constants (its branches were recorded
 * with the run), else the step's own job (which fans a map out when it runs).
 */
export async function jobsForStep(options: { pipeline: CompiledPipeline; step: CompiledStep; runId: string; batchId?: string | undefined }): Promise<StepJobSpec[]> {
  const { step } = options;
  const constant = step.map && !step.map.names('input') && !step.map.names('run_id') ? await listAtStart(step, null, options.runId) : null;
  if (usableList(constant)) return withChainParents(options, keysOf(constant).map((key, index) => stepJob({ ...options, branch: { key, index, item: constant[index] } })));
  // A map's own job fans it out and completes before its branches do: nothing may wait on it.
  return step.map ? [stepJob(options)] : withChainParents(options, [stepJob(options)]);
}

/**
 * `jobs` as the children of the step that needs their step alone, and is the only step to need
 * it (and so on up the chain): a BullMQ flow, whose parent BullMQ releases when every child has
 * completed, so that no worker adds it (see step-processor.ts). A child that fails for good fails
 * its parent unrun.
 */
function withChainParents(options: { pipeline: CompiledPipeline; step: CompiledStep; runId: string; batchId?: string | undefined }, jobs: StepJobSpec[]): StepJobSpec[] {
  let wrapped = jobs;
  for (let parent = chainParentOf(options.pipeline, options.step.name); parent; parent = chainParentOf(options.pipeline, parent.name)) {
    wrapped = [{ ...stepJob({ ...options, step: parent }), children: wrapped }];
  }
  return wrapped;
}

/** The step that needs `name` alone and is its only dependent, unless it is a map (many jobs, no one parent). */
export function chainParentOf(pipeline: CompiledPipeline, name: string): CompiledStep | null {
  const [only, ...others] = pipeline.steps.get(name)?.dependents ?? [];
  const parent = only !== undefined && others.length === 0 ? pipeline.steps.get(only) : undefined;
  return parent && !parent.map && parent.needs.length === 1 && parent.needs[0] === name ? parent : null;
}

interface RunShape {
  stages: string[];
  branches: Record<string, string[]>;
  stepQueues: Record<string, string>;
}

const constantShapes = new WeakMap<CompiledPipeline, Promise<RunShape>>();

/** A run's stages, the branches known at its start, and its steps' queues. */
async function runShape(pipeline: CompiledPipeline, input: unknown, runId: string): Promise<RunShape> {
  const branches: Record<string, string[]> = {};
  for (const step of pipeline.steps.values()) {
    const names = await branchesAtStart(step, input, runId);
    if (names) branches[step.name] = names;
  }
  return {
    // Declaration order, as the author wrote them; a map step's place is taken by its branches.
    stages: Object.keys(pipeline.stored.definition.steps).flatMap((name) => branches[name] ?? [name]),
    branches,
    stepQueues: Object.fromEntries([...pipeline.steps.values()].map((step) => [step.name, step.queue])),
  };
}

/** The run record of a new run of `pipeline`. */
export async function newPipelineRun(pipeline: CompiledPipeline, input: unknown, id?: string): Promise<NewRun & { id: string }> {
  const runId = id ?? newRunId();
  // Without maps over the input, every run of a version has the same shape: made once.
  const perRun = [...pipeline.steps.values()].some((step) => step.map && (step.map.names('input') || step.map.names('run_id')));
  let shape: Promise<RunShape> | undefined = perRun ? undefined : constantShapes.get(pipeline);
  if (!shape) {
    shape = runShape(pipeline, input, runId);
    if (!perRun) constantShapes.set(pipeline, shape);
  }
  return { id: runId, kind: pipeline.name, request: input, ...(await shape), pipeline: { name: pipeline.name, version: pipeline.version } };
}

/** The jobs of the steps a run starts with. */
export async function rootJobs(pipeline: CompiledPipeline, runId: string, batchId?: string): Promise<StepJobSpec[]> {
  const jobs = await Promise.all(pipeline.roots.map((name) => jobsForStep({ pipeline, step: pipeline.steps.get(name) as CompiledStep, runId, batchId })));
  return jobs.flat();
}

/** Records a queued run (input checked) and enqueues its first steps. */
export async function startPipelineRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues'>, options: { pipeline: CompiledPipeline; input: unknown; runId?: string }): Promise<string> {
  checkRunInput(options.pipeline, options.input);
  const run = await newPipelineRun(options.pipeline, options.input, options.runId);
  // The request's span (a run's root) names the run, so a trace can be found by run id.
  annotateActiveSpan({ 'switchyard.run.id': run.id, 'switchyard.pipeline.name': options.pipeline.name });
  await deps.store.createRun(run);
  await deps.queues.steps.add(await rootJobs(options.pipeline, run.id));
  return run.id;
}

/** Records a batch of runs of one pipeline (inputs checked first) and asks a worker to enqueue them. */
export async function startPipelineBatch(deps: Pick<PipelineRunsDeps, 'batches' | 'queues'>, options: { pipeline: CompiledPipeline; inputs: readonly unknown[]; batchId?: string }): Promise<{ batchId: string; runIds: string[] }> {
  const problems = options.inputs.flatMap((input, i) => options.pipeline.checkInput(input).map((p) => ({ ...p, path: `items.${i}.${p.path}` })));
  if (problems.length > 0) throw new InputError(problems.slice(0, 50));
  const runs = await Promise.all(options.inputs.map((input) => newPipelineRun(options.pipeline, input)));
  const created = await deps.batches.createBatch({ id: options.batchId, runs });
  annotateActiveSpan({ 'switchyard.batch.id': created.batchId, 'switchyard.pipeline.name': options.pipeline.name });
  await deps.queues.dispatchBatch(created.batchId, { name: options.pipeline.name, version: options.pipeline.version });
  return created;
}
