/**
 * Starting runs of a registered pipeline: the run is recorded (input, pinned version, its steps
 * as stages, the queue of each step) and the steps that need nothing are enqueued. A batch hands
 * the enqueueing to the dispatcher, so that 10,000 runs are accepted in one write.
 */
import type { RunStatus } from '@switchyard/contracts';
import { annotateActiveSpan } from '@switchyard/telemetry';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { DefinitionError } from '../definition/problems.js';
import type { BatchStore } from '../store/batch-store.js';
import { DEFAULT_RUN_LIMITS, jsonBytesWithin, RunLimitError, type RunLimits } from '../store/limits.js';
import { constantListOf, keysOf, listAtStart, usableList } from './map-lists.js';
import type { PipelineQueues } from './queues.js';
import { newRunId, type NewRun, type RunStore } from '../store/run-store.js';
import type { PipelineStore } from '../store/pipeline-store.js';
import { branchKeys, stageOf, stepJob, type StepJobSpec } from './step-jobs.js';
import { PRIORITY_BATCH, type FlowTag, type StepJob } from '../catalog.js';
import { runFlow, type CallerFlow } from '../flow/run-flow.js';
import { crashPoint } from '../crash-points.js';
import { carriedAtStart } from './carried.js';
import { addFirstJobsAgain } from './first-jobs-again.js';

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

/**
 * The bytes of a run's input as JSON; a RunLimitError (`input_too_large`) when they pass `limit`
 * of `limits`. Measured before anything else looks at the input: a schema check over a large one
 * costs more than the measure, and nothing is written for a refused one.
 */
export function checkInputSize(input: unknown, limits: RunLimits, limit: 'inputBytes' | 'aceflowInputBytes' = 'inputBytes', path?: string): number {
  const max = limits[limit];
  const size = jsonBytesWithin(input, max);
  if (size !== undefined) return size;
  const where = path === undefined ? "The run's input" : `The input of ${path}`;
  throw new RunLimitError({ code: 'input_too_large', limit, limitValue: max, message: `${where} is larger than ${max} bytes as JSON, the most a run takes`, ...(path === undefined ? {} : { path }) });
}

/**
 * Each input of a batch within the run limit, and all of them within the batch's: the items are
 * merged over `defaults` before this, so a large `defaults` counts once per item, as it is stored.
 */
export function checkBatchSize(inputs: readonly unknown[], limits: RunLimits): void {
  let left = limits.batchInputBytes;
  inputs.forEach((input, i) => {
    const size = checkInputSize(input, limits, 'inputBytes', `items.${i}`);
    left -= size;
    if (left < 0) throw new RunLimitError({ code: 'batch_too_large', limit: 'batchInputBytes', limitValue: limits.batchInputBytes, message: `The batch's inputs pass ${limits.batchInputBytes} bytes as JSON together at items.${i} (each item merged over defaults): split the batch`, path: `items.${i}` });
  });
}

/** Throws an InputError unless `input` fits the pipeline's input schema. */
export function checkRunInput(pipeline: CompiledPipeline, input: unknown, pathPrefix = ''): void {
  const problems = pipeline.checkInput(input);
  if (problems.length > 0) throw new InputError(problems.map((p) => ({ ...p, path: pathPrefix ? `${pathPrefix}.${p.path}` : p.path })));
}

/**
 * The branches of a map step whose list reads no step output, known when the run is created, so
 * that the run lists its stages from the start and its progress never goes back.
 */
async function branchesAtStart(step: CompiledStep, input: unknown, runId: string, limits: RunLimits): Promise<string[] | null> {
  const items = await listAtStart(step, input, runId);
  return usableList(items, limits) ? branchKeys(items).map((key) => stageOf(step.name, key)) : null;
}

/**
 * The jobs that start a step: one per branch for a map over constants (its branches were recorded
 * with the run; each takes its item from the definition's list), else the step's own job (which
 * fans a map out when it runs).
 * @param options.limits what a map's list may be (default DEFAULT_RUN_LIMITS)
 * @param options.carried what the step's own jobs read (not their chain parents', which read
 *   their children's outputs), as carriedOf or carriedAtStart give it: at most CARRIED_BYTES_MAX
 *   over all of them
 */
export async function jobsForStep(options: { pipeline: CompiledPipeline; step: CompiledStep; runId: string; batchId?: string | undefined; flow?: FlowTag | undefined; limits?: RunLimits | undefined; carried?: (count: number) => StepJob['carried'] }): Promise<StepJobSpec[]> {
  const { step, carried, ...common } = options;
  const constant = await constantListOf(step);
  if (usableList(constant, options.limits ?? DEFAULT_RUN_LIMITS)) {
    const count = constant.length;
    const inputs = carried?.(count);
    return withChainParents({ ...common, step }, keysOf(constant).map((key, index) => stepJob({ ...common, step, branch: { key, index, count, from: 'definition' }, carried: inputs })));
  }
  // A map's own job fans it out and completes before its branches do: nothing may wait on it.
  return step.map ? [stepJob({ ...common, step })] : withChainParents({ ...common, step }, [stepJob({ ...common, step, carried: carried?.(1) })]);
}

/**
 * `jobs` as the children of the step that needs their step alone, and is the only step to need
 * it (and so on up the chain): a BullMQ flow, whose parent BullMQ releases when every child has
 * completed, so that no worker adds it (see step-processor.ts). A child that fails for good fails
 * its parent unrun.
 */
function withChainParents(options: { pipeline: CompiledPipeline; step: CompiledStep; runId: string; batchId?: string | undefined; flow?: FlowTag | undefined }, jobs: StepJobSpec[]): StepJobSpec[] {
  let wrapped = jobs;
  for (let parent = chainParentOf(options.pipeline, options.step.name); parent; parent = chainParentOf(options.pipeline, parent.name)) {
    wrapped = [{ ...stepJob({ ...options, step: parent }), children: wrapped }];
  }
  return wrapped;
}

/** The step that needs `name` alone and is its only dependent, unless it is a map (many jobs, no one parent) or `name` is an agent. */
export function chainParentOf(pipeline: CompiledPipeline, name: string): CompiledStep | null {
  const child = pipeline.steps.get(name);
  // An agent's first job completes after its first turn, long before the step does: no parent may wait on it.
  if (child?.target.kind === 'agent') return null;
  // A step with a fallback: its job completes when the fallback is taken, before the fallback has stood in for it.
  if (child?.definition.on_error) return null;
  const [only, ...others] = child?.dependents ?? [];
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
async function runShape(pipeline: CompiledPipeline, input: unknown, runId: string, limits: RunLimits): Promise<RunShape> {
  const branches: Record<string, string[]> = {};
  for (const step of pipeline.steps.values()) {
    const names = await branchesAtStart(step, input, runId, limits);
    if (names) branches[step.name] = names;
  }
  return {
    // Declaration order, as the author wrote them; a map step's place is taken by its branches.
    // A fallback is a stage only once taken (fallback-scripts.ts): a run whose steps all succeed never waits for it.
    stages: Object.keys(pipeline.stored.definition.steps).filter((name) => !pipeline.fallbacks.has(name)).flatMap((name) => branches[name] ?? [name]),
    branches,
    stepQueues: Object.fromEntries([...pipeline.steps.values()].map((step) => [step.name, step.queue])),
  };
}

/**
 * The run record of a new run of `pipeline`.
 * @param limits what a map's list known at the start may be (default DEFAULT_RUN_LIMITS)
 */
export async function newPipelineRun(pipeline: CompiledPipeline, input: unknown, id?: string, limits: RunLimits = DEFAULT_RUN_LIMITS): Promise<NewRun & { id: string }> {
  const runId = id ?? newRunId();
  // Without maps over the input, every run of a version has the same shape: made once.
  const perRun = [...pipeline.steps.values()].some((step) => step.map && (step.map.names('input') || step.map.names('run_id')));
  let shape: Promise<RunShape> | undefined = perRun ? undefined : constantShapes.get(pipeline);
  if (!shape) {
    shape = runShape(pipeline, input, runId, limits);
    if (!perRun) constantShapes.set(pipeline, shape);
  }
  return { id: runId, kind: pipeline.name, request: input, ...(await shape), pipeline: { name: pipeline.name, version: pipeline.version } };
}

/**
 * The jobs of the steps a run starts with (`limits`: what a map's list may be, default
 * DEFAULT_RUN_LIMITS). `first`: this is the run's first add of them, which may carry its request
 * (carriedAtStart); an add made again must not, as its first job may have completed and gone.
 */
export async function rootJobs(pipeline: CompiledPipeline, runId: string, batchId?: string, limits?: RunLimits, flow?: FlowTag, first?: { request: unknown }): Promise<StepJobSpec[]> {
  const jobs = await Promise.all(
    pipeline.roots.map((name) => {
      const step = pipeline.steps.get(name) as CompiledStep;
      return jobsForStep({ pipeline, step, runId, batchId, flow, limits, carried: first ? carriedAtStart(pipeline, step, first.request) : undefined });
    }),
  );
  return jobs.flat();
}

/**
 * A run started: its id, and its status as the start left it (`queued` for a run written now), which
 * the API's 202 tells without reading it back.
 */
export interface StartedRun {
  runId: string;
  status: RunStatus;
  /** The version it was started on (for a repeat, the one the start was given). */
  pipeline: CompiledPipeline;
}

/**
 * Records a queued run (input checked: its size first, then its schema) and enqueues its first
 * steps; with `repeated`, finishes the start of the run `runId` names instead (resumePipelineRun).
 */
export async function startPipelineRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues' | 'pipelines'>, options: StartRunOptions): Promise<StartedRun> {
  if (options.repeated && options.runId) return resumePipelineRun(deps, { ...options, runId: options.runId });
  const limits = deps.store.limits;
  checkInputSize(options.input, limits, options.inputLimit);
  try {
    checkRunInput(options.pipeline, options.input);
  } catch (error) {
    // The version known may be stale: the input is refused only by the latest (or when it is gone).
    if (!(error instanceof InputError) || !options.latest) throw error;
    return startPipelineRun(deps, { ...options, pipeline: await options.latest.reload(), latest: undefined });
  }
  const run = await newPipelineRun(options.pipeline, options.input, options.runId, limits);
  run.flow = await runFlow({ pipeline: options.pipeline, input: options.input, runId: run.id, caller: options.caller, ...(options.defaultPriority ? { defaultPriority: options.defaultPriority } : {}) });
  // The request's span (a run's root) names the run, so a trace can be found by run id.
  annotateActiveSpan({ 'switchyard.run.id': run.id, 'switchyard.pipeline.name': options.pipeline.name });
  const record = options.owner ? { ...run, owner: options.owner } : run;
  if (options.latest) {
    const created = await deps.store.createRunChecked(record, { ...options.latest, expect: String(options.pipeline.version) });
    if (!('id' in created)) return restartOnLatest(deps, { ...options, latest: options.latest }, run.id);
  } else await deps.store.createRun(record);
  // Before any job: whatever is kept about the run's end (its webhook) is in place before it can end.
  await options.onRecorded?.(run.id);
  crashPoint('run.recorded');
  await deps.queues.steps.add(await rootJobs(options.pipeline, run.id, undefined, limits, run.flow, { request: options.input }));
  return { runId: run.id, status: 'queued', pipeline: options.pipeline };
}

/**
 * A start whose pipeline was no longer the latest when its run was admitted (another process
 * registered or deleted a version): made again on the latest, under the same id, whose admission
 * stands. Released when the latest is gone or refuses the input, since no run will hold it.
 */
async function restartOnLatest(deps: Pick<PipelineRunsDeps, 'store' | 'queues' | 'pipelines'>, options: StartRunOptions & { latest: LatestCheck }, runId: string): Promise<StartedRun> {
  let pipeline: CompiledPipeline;
  try {
    pipeline = await options.latest.reload();
    checkRunInput(pipeline, options.input);
  } catch (error) {
    await deps.store.liveRuns.release([runId]);
    throw error;
  }
  return startPipelineRun(deps, { ...options, pipeline, runId, latest: undefined });
}

/** Where a pipeline's latest version is read (PipelineStore.latestField), and how to read it afresh. */
export interface LatestCheck {
  key: string;
  field: string;
  reload(): Promise<CompiledPipeline>;
}

export interface StartRunOptions {
  pipeline: CompiledPipeline;
  input: unknown;
  runId?: string | undefined;
  /** Which limit the input's size is held to (default `inputBytes`; the AceFlow alias's is its own). */
  inputLimit?: 'inputBytes' | 'aceflowInputBytes';
  /** The id of the API key that holds the run (admitted under its bound of live runs, TooManyRunsError past it); none for a scheduled run. */
  owner?: string | undefined;
  onRecorded?: ((runId: string) => Promise<void>) | undefined;
  caller?: CallerFlow | undefined;
  defaultPriority?: number;
  /** The request came again under its Idempotency-Key, which named `runId`: the start is finished, not made again (resumePipelineRun). */
  repeated?: boolean | undefined;
  /**
   * `pipeline` is its latest version as this process last read it: the latest is read again in the
   * round trip that admits the run (a round trip the start makes anyway), and the start made on
   * `reload()`'s version when they differ. None: `pipeline` is the version to run.
   */
  latest?: LatestCheck | undefined;
}

/**
 * Finishes the start of a run whose request came again under its Idempotency-Key. A writer that
 * died after claiming the key left no run: it is started now, under the claimed id. One that died
 * later left it `queued` without its listing, its webhook or its first jobs: each is written
 * again, a no-op where it is there (ZADD NX; the jobs, see addFirstJobsAgain). A run past `queued`
 * has its jobs already.
 */
async function resumePipelineRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues' | 'pipelines'>, options: StartRunOptions & { runId: string }): Promise<StartedRun> {
  const [status, version] = (await deps.store.redis.hmget(deps.store.keys.run(options.runId), 'status', 'pipeline_version')) as [RunStatus | null, string | null];
  if (status === null) return startPipelineRun(deps, { ...options, repeated: false });
  const pipeline = await pinnedVersion(deps, options.pipeline, version);
  if (status !== 'queued') return { runId: options.runId, status, pipeline };
  await deps.store.ensureIndexed(options.runId);
  await options.onRecorded?.(options.runId);
  const flow = await deps.store.getFlow(options.runId);
  await addFirstJobsAgain({ steps: deps.queues.steps, store: deps.store }, [{ runId: options.runId, jobs: await rootJobs(pipeline, options.runId, undefined, deps.store.limits, flow) }]);
  return { runId: options.runId, status, pipeline };
}

/**
 * The version a run was recorded on, compiled. A repeated request is given the latest version, and
 * a version registered since its first request must not run the steps of a run recorded on another.
 */
async function pinnedVersion(deps: Pick<PipelineRunsDeps, 'pipelines'>, given: CompiledPipeline, recorded: string | null): Promise<CompiledPipeline> {
  const version = recorded === null ? given.version : Number(recorded);
  if (version === given.version) return given;
  const pinned = await deps.pipelines.pinned(given.name, version);
  if (!pinned) throw new Error(`version ${version} of pipeline ${given.name}, which its runs were recorded on, is no longer kept`);
  return pinned;
}

/**
 * Records a batch of runs of one pipeline (inputs checked first: sizes, then schemas) and asks a
 * worker to enqueue them; with `repeated`, finishes the start of the batch `batchId` names instead.
 */
export async function startPipelineBatch(deps: Pick<PipelineRunsDeps, 'store' | 'batches' | 'queues' | 'pipelines'>, options: StartBatchOptions): Promise<{ batchId: string; runIds: string[] }> {
  if (options.repeated && options.batchId) return resumePipelineBatch(deps, { ...options, batchId: options.batchId });
  const limits = deps.store.limits;
  checkBatchSize(options.inputs, limits);
  const problems = options.inputs.flatMap((input, i) => options.pipeline.checkInput(input).map((p) => ({ ...p, path: `items.${i}.${p.path}` })));
  if (problems.length > 0) throw new InputError(problems.slice(0, 50));
  const runs = await batchRuns(deps.store, options, options.inputs.map(() => undefined));
  const created = await deps.batches.createBatch({ id: options.batchId, runs });
  annotateActiveSpan({ 'switchyard.batch.id': created.batchId, 'switchyard.pipeline.name': options.pipeline.name });
  await options.onRecorded?.(created.batchId);
  crashPoint('batch.recorded');
  await deps.queues.dispatchBatch(created.batchId, { name: options.pipeline.name, version: options.pipeline.version });
  return created;
}

export interface StartBatchOptions {
  pipeline: CompiledPipeline;
  inputs: readonly unknown[];
  batchId?: string | undefined;
  /** The id of the API key that holds its runs (all admitted under its bound of live runs, or none). */
  owner?: string | undefined;
  onRecorded?: ((batchId: string) => Promise<void>) | undefined;
  caller?: CallerFlow | undefined;
  /** The request came again under its Idempotency-Key, which named `batchId`: the start is finished, not made again (resumePipelineBatch). */
  repeated?: boolean | undefined;
}

/** The run records of a batch's inputs, under the ids given (a fresh one where undefined). */
function batchRuns(store: RunStore, options: StartBatchOptions, ids: readonly (string | undefined)[]): Promise<NewRun[]> {
  return Promise.all(
    ids.map(async (id, i) => {
      const input = options.inputs[i];
      const run = await newPipelineRun(options.pipeline, input, id, store.limits);
      run.flow = await runFlow({ pipeline: options.pipeline, input, runId: run.id, caller: options.caller, defaultPriority: PRIORITY_BATCH });
      return options.owner ? { ...run, owner: options.owner } : run;
    }),
  );
}

/**
 * Finishes the start of a batch whose request came again under its Idempotency-Key. A writer that
 * died after claiming the key left no batch: it is started now under the claimed id. One that died
 * later left the batch without some of its runs (written now, under the ids its list holds, from
 * the same inputs), its runs unlisted, its webhook or its dispatch job: each is written again, a
 * no-op where it is there (ZADD NX, the dispatch job's id; the dispatcher skips what it enqueued).
 */
async function resumePipelineBatch(deps: Pick<PipelineRunsDeps, 'store' | 'batches' | 'queues' | 'pipelines'>, options: StartBatchOptions & { batchId: string }): Promise<{ batchId: string; runIds: string[] }> {
  const runIds = await deps.batches.runIdsOf(options.batchId);
  if (runIds.length === 0) return startPipelineBatch(deps, { ...options, repeated: false });
  const statuses = await deps.store.getStatuses(runIds);
  // The runs written before are on the version of the first request, which may not be the latest now.
  const written = runIds.find((_, i) => statuses[i] !== null);
  const recorded = written === undefined ? null : await deps.store.redis.hget(deps.store.keys.run(written), 'pipeline_version');
  const pipeline = await pinnedVersion(deps, options.pipeline, recorded);
  const missing = runIds.map((id, i) => (statuses[i] === null ? id : undefined));
  const unwritten = (await batchRuns(deps.store, { ...options, pipeline }, missing)).filter((_, i) => missing[i] !== undefined);
  if (unwritten.length > 0) await deps.store.createRuns(unwritten.map((run) => ({ ...run, batchId: options.batchId })));
  const queued = runIds.filter((_, i) => statuses[i] === 'queued');
  for (let i = 0; i < queued.length; i += 200) await Promise.all(queued.slice(i, i + 200).map((id) => deps.store.ensureIndexed(id)));
  await deps.batches.keepBatch(options.batchId);
  await options.onRecorded?.(options.batchId);
  await deps.queues.dispatchBatch(options.batchId, { name: pipeline.name, version: pipeline.version });
  return { batchId: options.batchId, runIds };
}
